//! The scripts of a window's steps, one call a group (its keys share a hash tag, so a slot):
//! each reads and writes many fields with one command (`HMGET`, `HSET`), since Redis
//! counts and serves the commands a script runs as commands. Called by their SHA-1
//! (`EVALSHA`: the text is sent once a node, not once a call); a node that does not know
//! one (new, or promoted in a failover) is sent all of them again.
//!
//! A record's bytes are read at the places [`record`](super::record) writes them (1-based
//! here): the state at 2, the time at 3 to 15, the number at 16 to 35, the writer's name's
//! length at 44 and 45, then the name.

use redis::cluster::ClusterConnection;
use redis::{ErrorKind, RedisError, RedisResult, ServerErrorKind};

/// Claims records of one group: `KEYS[1]` the group's records; `ARGV[1]` this writer,
/// `ARGV[2]` the lease (milliseconds), `ARGV[3]` the layout, then an id and its
/// registration ([`record::registration`](super::record::registration)) a document. A
/// record is taken unless it is decided or another writer's live registration; a taken one
/// is written stamped with the Redis server's time (every lease is judged by the server's
/// clock: writers' clocks may be off by any amount). Returns, a document, `1` and the record
/// written, or `0` and the record found (as strings: one array of bulk strings).
pub(super) const CLAIM: &str = "
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ids = {}
for i = 4, #ARGV, 2 do ids[#ids + 1] = ARGV[i] end
local found = redis.call('HMGET', KEYS[1], unpack(ids))
local out, set = {}, {}
for i = 1, #ids do
  local r = found[i]
  local keep = false
  if r and #r >= 45 then
    local st = string.sub(r, 2, 2)
    local numbered = string.find(string.sub(r, 16, 35), '[1-9]') ~= nil
    local n = string.byte(r, 44) * 256 + string.byte(r, 45)
    local live = st == 'p' and now - tonumber(string.sub(r, 3, 15)) <= tonumber(ARGV[2])
    keep = ((st == 'a' or st == 'r') and numbered) or (live and string.sub(r, 46, 45 + n) ~= ARGV[1])
  end
  if keep then
    out[#out + 1] = '0'
    out[#out + 1] = r
  else
    local v = ARGV[3] .. 'p' .. string.format('%013d', now) .. ARGV[3 + 2 * i]
    set[#set + 1] = ids[i]
    set[#set + 1] = v
    out[#out + 1] = '1'
    out[#out + 1] = v
  end
end
if #set > 0 then redis.call('HSET', KEYS[1], unpack(set)) end
return out
";

/// Lists documents under candidate keys of one group, and adds ids to the group's part of
/// this writer's set: `KEYS[1]` that set, the other keys list hashes; `ARGV[1]` the number
/// of ids, the ids, then for each list hash the number of its entries and each entry's
/// field and [`list_entry`](super::keys::list_entry) (with a fingerprint, 10 bytes before
/// its id, when the field is a block's: 2^40 or more; else 2). An entry already in its list
/// (a retried step, or a resumed run) is not added again.
pub(super) const REGISTER: &str = "
local a = 2 + tonumber(ARGV[1])
if a > 2 then redis.call('SADD', KEYS[1], unpack(ARGV, 2, a - 1)) end
for k = 2, #KEYS do
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
    local j, size, there = 1, #e, false
    local head = tonumber(f) >= 1099511627776 and 10 or 2
    while j + 1 < #v do
      local span = head + string.byte(v, j) * 256 + string.byte(v, j + 1)
      if span == size and string.sub(v, j, j + span - 1) == e then there = true break end
      j = j + span
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

/// Compares and sets records of one group, then takes ids out of the group's part of this
/// writer's set: `KEYS[1]` the records, `KEYS[2]` that set; `ARGV[1]` the number of
/// records, then an id, the record expected and the record to write a record; the rest the
/// ids to take out. A record is written only where it is the one expected (not claimed anew
/// meanwhile by another writer). Returns, a record, 1 when it holds the new one (written
/// now, or by a try before), else 0.
pub(super) const UPDATE: &str = "
local n = tonumber(ARGV[1])
local out = {}
if n > 0 then
  local ids = {}
  for i = 1, n do ids[i] = ARGV[3 * i - 1] end
  local cur = redis.call('HMGET', KEYS[1], unpack(ids))
  local set = {}
  for i = 1, n do
    local want, new = ARGV[3 * i], ARGV[3 * i + 1]
    if cur[i] == want then
      set[#set + 1] = ids[i]
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
if #ARGV > 1 + 3 * n then redis.call('SREM', KEYS[2], unpack(ARGV, 2 + 3 * n)) end
return out
";

/// Reads records of one group with the time of the Redis server that holds them:
/// `KEYS[1]` the records, `ARGV` the ids. Returns the time (milliseconds), then each
/// record (nil for none), so that a record's age is judged by the clock that stamped it.
pub(super) const READ: &str = "
local t = redis.call('TIME')
local out = {string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))}
local found = redis.call('HMGET', KEYS[1], unpack(ARGV))
for i = 1, #ARGV do out[i + 1] = found[i] end
return out
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
