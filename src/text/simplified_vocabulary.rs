//! Taiwan vocabulary written in Simplified characters, folded to mainland vocabulary.
//!
//! Much Chinese text on the web is Taiwan or Hong Kong wording in Simplified characters: the
//! output of character-only converters, mirrors that offer a "简体" switch, regional
//! editions. OpenCC's `tw2sp` finds Taiwan phrases in Traditional spelling only, so in such
//! text 使用者 / 用户 and 档案 / 文件 stay apart, and each breaks several character
//! n-grams. This pass is OpenCC's Taiwan phrase table (`TWPhrasesRev`) with its keys spelled
//! in Simplified characters and its values in mainland Simplified, walked as OpenCC walks
//! (the longest key at each position).
//!
//! Applied to every text, it is a fold rather than a conversion: two texts that differ only
//! in regional wording end equal. In Simplified spelling a phrase can be Taiwan wording and
//! mainland wording at once (文件 is Taiwan's 文档 and the mainland's 档案), so the phrases
//! that the table links, a Taiwan phrase with its mainland renderings (预设: 缺省 or 默认),
//! form classes, and every phrase of a class folds to the class's commonest word (the lowest
//! IDF in jieba's table: 文件, not 文档; 建立, not 创建), which folds to itself. Most mainland
//! text so changes nothing (and is not walked), and text is folded until it is a fixed
//! point, so that folding folded text changes nothing.
//!
//! The table is built once, by [`generate`] (a test keeps `assets/opencc/TWPhrasesFold.txt`
//! equal to what it builds), and shipped: loading jieba's IDF table at every start would
//! cost more than the fold.

use std::borrow::Cow;

use super::opencc::{KeyEnds, Pass};

#[cfg(test)]
pub(crate) mod generate;

/// The fold's table, in OpenCC's format: each phrase and what it folds to.
const TW_PHRASES_FOLD: &str = include_str!("../../assets/opencc/TWPhrasesFold.txt");

/// The fold of Taiwan vocabulary in Simplified characters (see the module docs).
pub(crate) struct SimplifiedVocabulary {
    pass: Pass,
}

impl SimplifiedVocabulary {
    /// Indexes the shipped table.
    pub(crate) fn new() -> Self {
        SimplifiedVocabulary {
            pass: Pass::from_dictionary(TW_PHRASES_FOLD),
        }
    }

    /// What a text must hold to be changed (see [`Pass::changing_keys`]).
    pub(crate) fn changing_keys(&self) -> impl Iterator<Item = KeyEnds> + '_ {
        self.pass.changing_keys()
    }

    /// `text` (Simplified) with Taiwan vocabulary folded to mainland vocabulary, one walk:
    /// borrowed when nothing changes. A fold can make a longer phrase of the table (档案扩展名
    /// becomes 文件扩展名, which folds to 扩展名): the caller walks changed text again until
    /// it is a fixed point ([`ScriptFolder`](super::ScriptFolder)).
    pub(crate) fn apply<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.pass.apply(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::opencc::{entries_with_alternatives, TW_PHRASES_REV};
    use std::sync::LazyLock;

    static VOCABULARY: LazyLock<SimplifiedVocabulary> = LazyLock::new(SimplifiedVocabulary::new);

    fn fold(text: &str) -> String {
        VOCABULARY.apply(text).into_owned()
    }

    #[test]
    fn folds_taiwan_phrases_spelled_in_simplified() {
        assert_eq!(fold("使用者的档案"), "用户的文件");
        assert_eq!(fold("位元组"), "字节");
        assert_eq!(fold("丢掷例外"), fold("抛出例外"));
        assert_eq!(fold("列印"), "打印");
        assert_eq!(fold("软体"), "软件");
    }

    #[test]
    fn mainland_renderings_meet_and_stay_whole() {
        // 預設: 缺省 or 默认; both fold to one.
        assert_eq!(fold("预设"), fold("默认"));
        assert_eq!(fold("默认"), fold("缺省"));
        assert_eq!(fold("厄瓜多尔"), "厄瓜多尔");
        assert_eq!(fold("厄瓜多"), "厄瓜多尔");
        // Taiwan's 文件 is the mainland's 文档: the commoner 文件 is what both become.
        assert_eq!(fold("文档"), "文件");
        assert!(matches!(
            VOCABULARY.apply("我爱北京天安门的文件"),
            Cow::Borrowed(_)
        ));
    }

    /// Folding what was folded changes nothing, so that a Traditional text (converted by
    /// `tw2sp`, then folded) and its character-only conversion (folded once) agree.
    #[test]
    fn the_fold_is_idempotent_on_taiwan_phrases() {
        let characters = generate::characters();
        for (key, _) in entries_with_alternatives(TW_PHRASES_REV) {
            let once = fold(&generate::spell(key, &characters));
            assert_eq!(once, fold(&once), "{key}");
        }
    }
}
