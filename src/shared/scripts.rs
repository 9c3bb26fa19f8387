//! The scripts of a window's steps, one call a group (its keys share a hash tag, so a slot):
//! each reads and writes many fields with one command (`HMGET`, `HSET`), since Redis
//! counts and serves the commands a script runs as commands. Called by their SHA-1
//! (`EVALSHA`: the text is sent once a node, not once a call); a node that does not know
//! one (new, or promoted in a failover) is sent all of them again.
//!
//! A record's bytes are read at the places [`record`](super::record) writes them (1-based
//! here): the state at 2, the time at 3 to 8, the number at 9 to 14, the writer's number
//! at 23 and 24, the id's length at 25 and 26, then the id.

use redis::cluster::ClusterConnection;
use redis::{ErrorKind, RedisError, RedisResult, ServerErrorKind};

/// Claims records of one group: `KEYS[1]` the group's records (a field a slot); `ARGV[1]`
/// this writer's number (2 bytes, as in a record), `ARGV[2]` the lease (milliseconds), `ARGV[3]` the layout, then an id, its
/// first slot ([`first_slot_of_id`](super::slots::first_slot_of_id)) and its registration
/// ([`record::registration`](super::record::registration)) a document. An id's record is
/// at the first slot from its own on that is free or holds that id (a slot taken by
/// another id is passed: records are never removed, so the slot stays the id's). A record
/// is taken unless it is decided or another writer's live registration; a taken one is
/// written stamped with the Redis server's time (every lease is judged by the server's
/// clock: writers' clocks may be off by any amount). Returns, a document, `1`, its slot
/// and the record written, or `0`, its slot and the record found (as strings: one array
/// of bulk strings).
pub(super) const CLAIM: &str = "
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function wide(r, at)
  local x = 0
  for k = at, at + 5 do x = x * 256 + string.byte(r, k) end
  return x
end
local function id_of(r)
  local m = string.byte(r, 25) * 256 + string.byte(r, 26)
  return string.sub(r, 27, 26 + m)
end
local stamp, x = '', now
for k = 1, 6 do
  stamp = string.char(x % 256) .. stamp
  x = math.floor(x / 256)
end
local unnumbered = string.rep(string.char(0), 6)
local ids, slots = {}, {}
for i = 4, #ARGV, 3 do
  ids[#ids + 1] = ARGV[i]
  slots[#slots + 1] = ARGV[i + 1]
end
local found = redis.call('HMGET', KEYS[1], unpack(slots))
local out, set, written = {}, {}, {}
for i = 1, #ids do
  local s, r = tonumber(slots[i]), found[i]
  while true do
    if written[s] then r = written[s] end
    if not r or id_of(r) == ids[i] then break end
    s = (s + 1) % 268435456
    r = redis.call('HGET', KEYS[1], s)
  end
  local keep = false
  if r then
    local st = string.sub(r, 2, 2)
    local numbered = string.sub(r, 9, 14) ~= unnumbered
    local live = st == 'p' and now - wide(r, 3) <= tonumber(ARGV[2])
    keep = ((st == 'a' or st == 'r') and numbered) or (live and string.sub(r, 23, 24) ~= ARGV[1])
  end
  out[#out + 1] = keep and '0' or '1'
  out[#out + 1] = tostring(s)
  if keep then
    out[#out + 1] = r
  else
    local v = ARGV[3] .. 'p' .. stamp .. ARGV[3 + 3 * i]
    written[s] = v
    set[#set + 1] = s
    set[#set + 1] = v
    out[#out + 1] = v
  end
end
if #set > 0 then redis.call('HSET', KEYS[1], unpack(set)) end
return out
";

/// Lists documents under candidate keys of one group: `KEYS` its list hashes; `ARGV`, for
/// each list hash, the number of its entries and each entry's field and
/// [`list_entry`](super::keys::list_entry) (12 bytes when the field is a block's, else 4:
/// the entry's length, as given). An entry already in its list (a retried step, or a resumed run) is not
/// added again.
pub(super) const REGISTER: &str = "
local a = 1
for k = 1, #KEYS do
  local c = tonumber(ARGV[a])
  local fields = {}
  for i = 1, c do fields[i] = ARGV[a + 2 * i - 1] end
  local cur = redis.call('HMGET', KEYS[k], unpack(fields))
  local values, changed, order = {}, {}, {}
  for i = 1, c do
    local f, e = fields[i], ARGV[a + 2 * i]
    local v = values[f]
    if v == nil then
      v = cur[i] or ''
      order[#order + 1] = f
    end
    local w, there = #e, false
    for j = 1, #v, w do
      if string.sub(v, j, j + w - 1) == e then there = true break end
    end
    if not there then
      v = v .. e
      changed[f] = true
    end
    values[f] = v
  end
  local set = {}
  for _, f in ipairs(order) do
    if changed[f] then
      set[#set + 1] = f
      set[#set + 1] = values[f]
    end
  end
  if #set > 0 then redis.call('HSET', KEYS[k], unpack(set)) end
  a = a + 1 + 2 * c
end
return 1
";

/// Compares and sets records of one group: `KEYS[1]` the records; `ARGV` a slot, the
/// record expected and the record to write a record. A record is written only where it is
/// the one expected (not claimed anew meanwhile by another writer). Returns, a record, 1
/// when it holds the new one (written now, or by a try before), else 0.
pub(super) const UPDATE: &str = "
local n = #ARGV / 3
local out = {}
if n > 0 then
  local slots = {}
  for i = 1, n do slots[i] = ARGV[3 * i - 2] end
  local cur = redis.call('HMGET', KEYS[1], unpack(slots))
  local set = {}
  for i = 1, n do
    local want, new = ARGV[3 * i - 1], ARGV[3 * i]
    if cur[i] == want then
      set[#set + 1] = slots[i]
      set[#set + 1] = new
      out[i] = 1
    elseif cur[i] == new then
      out[i] = 1
    else
      out[i] = 0
    end
  end
  if #set > 0 then redis.call('HSET', KEYS[1], unpack(set)) end
end
return out
";

/// Reads records of one group with the time of the Redis server that holds them:
/// `KEYS[1]` the records, `ARGV` the slots. Returns the time (milliseconds), then each
/// record (nil for none), so that a record's age is judged by the clock that stamped it.
pub(super) const READ: &str = "
local t = redis.call('TIME')
local out = {string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))}
local found = redis.call('HMGET', KEYS[1], unpack(ARGV))
for i = 1, #ARGV do out[i + 1] = found[i] end
return out
";

/// The number of the writer `ARGV[1]` in the space's table of writers `KEYS[1]`, given it
/// the first time (`n:` and the name to the number, `w:` and the number to the name, `#`
/// the last number given).
pub(super) const WRITER: &str = "
local n = redis.call('HGET', KEYS[1], 'n:' .. ARGV[1])
if n then return tonumber(n) end
n = redis.call('HINCRBY', KEYS[1], '#', 1)
redis.call('HSET', KEYS[1], 'n:' .. ARGV[1], n, 'w:' .. n, ARGV[1])
return n
";

/// Every script, in the order of [`Shas`]'s fields.
const ALL: [&str; 4] = [CLAIM, REGISTER, UPDATE, READ];

/// The SHA-1 of each script, as the nodes answered `SCRIPT LOAD`.
#[derive(Debug, Clone)]
pub(super) struct Shas {
    pub(super) claim: String,
    pub(super) register: String,
    pub(super) update: String,
    pub(super) read: String,
}

/// Sends every script to every node of the cluster; their SHA-1s.
pub(super) fn load(c: &mut ClusterConnection) -> RedisResult<Shas> {
    let mut shas = Vec::with_capacity(ALL.len());
    for code in ALL {
        let sha: String = redis::cmd("SCRIPT").arg("LOAD").arg(code).query(c)?;
        shas.push(sha);
    }
    let mut shas = shas.into_iter();
    let mut next = || shas.next().unwrap_or_default();
    Ok(Shas {
        claim: next(),
        register: next(),
        update: next(),
        read: next(),
    })
}

/// `result`, after sending the scripts again to every node when a node did not know one
/// (the caller's retry then finds them).
pub(super) fn reloading<T>(c: &mut ClusterConnection, result: RedisResult<T>) -> RedisResult<T> {
    if let Err(error) = &result {
        if unknown_script(error) {
            load(c)?;
        }
    }
    result
}

fn unknown_script(error: &RedisError) -> bool {
    error.kind() == ErrorKind::Server(ServerErrorKind::NoScript)
        || error.to_string().contains("NOSCRIPT")
}
