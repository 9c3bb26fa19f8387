//! The classes of 64 bytes of ASCII text as bit masks, one bit a byte: what the word scan
//! of [`ascii_words`](super::ascii_words) reads, so that finding a word's end costs a
//! count of trailing zeros instead of a branch per byte (whose exit mispredicts at almost
//! every word).
//!
//! On x86-64 the masks come from SSE2 compares, 16 bytes at a time, through `safe_arch`'s
//! safe wrappers (SSE2 is part of the x86-64 baseline: no detection at run time);
//! elsewhere from a scan of the bytes. A test checks that the two agree.

/// The classes of the bytes of a block: bit `i` of each mask says whether byte `i` is in
/// the class. Bytes past the end of the text are zeros, which are in none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct BlockMasks {
    /// ASCII letters.
    pub letters: u64,
    /// ASCII digits.
    pub digits: u64,
    /// Uppercase ASCII letters.
    pub uppercase: u64,
    /// `_`.
    pub underscores: u64,
    /// `.`, `,`, `;` and `'`: they join two digits (WB11, WB12).
    pub digit_infixes: u64,
    /// `'`, `.` and `:`: they join two letters (WB6, WB7).
    pub letter_infixes: u64,
}

impl BlockMasks {
    /// The masks of `block`.
    #[inline]
    pub fn of(block: &[u8; 64]) -> BlockMasks {
        #[cfg(target_arch = "x86_64")]
        {
            sse2::masks(block)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            BlockMasks::by_byte(block)
        }
    }

    /// The masks of `block`, a byte at a time.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    pub fn by_byte(block: &[u8; 64]) -> BlockMasks {
        let mut masks = BlockMasks::default();
        for (i, &b) in block.iter().enumerate() {
            let bit = |yes: bool| u64::from(yes) << i;
            masks.letters |= bit(b.is_ascii_alphabetic());
            masks.digits |= bit(b.is_ascii_digit());
            masks.uppercase |= bit(b.is_ascii_uppercase());
            masks.underscores |= bit(b == b'_');
            masks.digit_infixes |= bit(matches!(b, b'.' | b',' | b';' | b'\''));
            masks.letter_infixes |= bit(matches!(b, b'\'' | b'.' | b':'));
        }
        masks
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use super::BlockMasks;
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, m128i, min_u8_m128i,
        move_mask_i8_m128i, set_splat_i8_m128i, sub_i8_m128i,
    };

    /// [`BlockMasks::of`], 16 bytes at a time.
    #[inline]
    pub(super) fn masks(block: &[u8; 64]) -> BlockMasks {
        let mut masks = BlockMasks::default();
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            let v = load_unaligned_m128i(chunk.try_into().expect("16 bytes"));
            let bits = |m: m128i| u64::from(move_mask_i8_m128i(m) as u16) << (16 * k);
            let is = |c: u8| cmp_eq_mask_i8_m128i(v, splat(c));
            let (dot, apostrophe) = (is(b'.'), is(b'\''));
            // `b | 0x20` is a lowercase letter exactly when `b` is a letter.
            masks.letters |= bits(in_range(bitor_m128i(v, splat(0x20)), b'a', b'z'));
            masks.digits |= bits(in_range(v, b'0', b'9'));
            masks.uppercase |= bits(in_range(v, b'A', b'Z'));
            masks.underscores |= bits(is(b'_'));
            let digit_infixes = bitor_m128i(bitor_m128i(dot, apostrophe), is(b','));
            masks.digit_infixes |= bits(bitor_m128i(digit_infixes, is(b';')));
            masks.letter_infixes |= bits(bitor_m128i(bitor_m128i(dot, apostrophe), is(b':')));
        }
        masks
    }

    /// `c` in every lane.
    #[inline]
    fn splat(c: u8) -> m128i {
        set_splat_i8_m128i(c as i8)
    }

    /// The lanes of `v` between `lo` and `hi`: `v - lo` unsigned is at most `hi - lo`
    /// exactly then, which is when the smaller of the two is `v - lo` itself.
    #[inline]
    fn in_range(v: m128i, lo: u8, hi: u8) -> m128i {
        let offset = sub_i8_m128i(v, splat(lo));
        cmp_eq_mask_i8_m128i(min_u8_m128i(offset, splat(hi - lo)), offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_byte_value() {
        for first in (0..=255u8).step_by(64) {
            let block: [u8; 64] = std::array::from_fn(|i| first + i as u8);
            assert_eq!(BlockMasks::of(&block), BlockMasks::by_byte(&block));
        }
        let mut block = [b' '; 64];
        block[..11].copy_from_slice(b"Can't 3.14_");
        let masks = BlockMasks::of(&block);
        assert_eq!(masks.letters, 0b000_0001_0111);
        assert_eq!(masks.uppercase, 0b1);
        assert_eq!(masks.digits, 0b011_0100_0000);
        assert_eq!(masks.underscores, 0b100_0000_0000);
        assert_eq!(masks.digit_infixes, 0b000_1000_1000);
        assert_eq!(masks.letter_infixes, 0b000_1000_1000);
    }

    proptest! {
        #[test]
        fn the_compares_are_the_byte_scan(block in prop::array::uniform32(any::<u8>()), high in prop::array::uniform32(0u8..128)) {
            let block: [u8; 64] = std::array::from_fn(|i| if i < 32 { block[i] } else { high[i - 32] });
            prop_assert_eq!(BlockMasks::of(&block), BlockMasks::by_byte(&block));
        }
    }
}
