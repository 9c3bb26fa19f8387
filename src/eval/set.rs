//! [`EvalSet`]: documents and labeled pairs, with the rule for the pairs not listed.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// What a pair of documents that `pairs.jsonl` does not list counts as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Unlisted {
    /// Only listed pairs count.
    Ignore,
    /// Documents of different groups (or without a group) are distinct; documents of one
    /// group are left out (an edited copy and another copy of the same original).
    Negative,
    /// Documents of one group are near-duplicates, of different groups distinct: labels
    /// given as groups.
    Group,
}

impl Unlisted {
    /// The label of a pair not listed whose documents are (`same_group`) or are not of one
    /// group; `None` where such a pair does not count.
    #[must_use]
    pub fn label(self, same_group: bool) -> Option<bool> {
        match (self, same_group) {
            (Unlisted::Ignore, _) | (Unlisted::Negative, true) => None,
            (Unlisted::Negative, false) | (Unlisted::Group, false) => Some(false),
            (Unlisted::Group, true) => Some(true),
        }
    }
}

/// One kind of listed pair: its `kind`, `rate` and label, as the report breaks recall and
/// false positives down.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Category {
    /// What the pair is (`"substitute"`, `"hard-negative:topic"`, ...); empty when not given.
    pub kind: String,
    /// The edit rate, where one applies.
    pub rate: Option<f64>,
    /// The label of the pairs: true for near-duplicates.
    pub label: bool,
}

/// A listed pair, by document index (`a < b`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListedPair {
    /// The first document.
    pub a: u32,
    /// The second document, after `a`.
    pub b: u32,
    /// True for near-duplicates, false for distinct documents, `None` to leave out.
    pub label: Option<bool>,
    /// Index into [`EvalSet::categories`], for labeled pairs.
    pub category: Option<u32>,
}

/// Documents and their labeled pairs, the input of an evaluation.
///
/// Built with [`EvalSetBuilder`]; the command-line tool reads it from the files described in
/// `docs/DATA.md` ("Evaluation sets: format").
#[derive(Clone, Debug)]
pub struct EvalSet {
    name: String,
    ids: Vec<String>,
    texts: Vec<String>,
    groups: Vec<u32>,
    meta: Vec<Vec<String>>,
    listed: Vec<ListedPair>,
    categories: Vec<Category>,
    unlisted: Unlisted,
}

impl EvalSet {
    /// The set's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The number of documents.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when the set has no documents.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The documents' ids, by index.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// The documents' texts, by index.
    pub fn texts(&self) -> &[String] {
        &self.texts
    }

    /// Each document's group number; documents given no group have one of their own.
    pub fn groups(&self) -> &[u32] {
        &self.groups
    }

    /// Each document's metadata set (empty when it has none).
    pub fn meta(&self) -> &[Vec<String>] {
        &self.meta
    }

    /// True when some document has a metadata set.
    pub fn has_meta(&self) -> bool {
        self.meta.iter().any(|m| !m.is_empty())
    }

    /// The listed pairs.
    pub fn listed(&self) -> &[ListedPair] {
        &self.listed
    }

    /// The categories of the labeled listed pairs.
    pub fn categories(&self) -> &[Category] {
        &self.categories
    }

    /// The rule for pairs not listed.
    pub fn unlisted(&self) -> Unlisted {
        self.unlisted
    }

    /// The label of an unlisted pair of documents `a` and `b` under [`unlisted`](Self::unlisted).
    pub fn unlisted_label(&self, a: usize, b: usize) -> Option<bool> {
        self.unlisted.label(self.groups[a] == self.groups[b])
    }
}

/// Builds an [`EvalSet`] document by document and pair by pair, refusing what would make
/// the counts wrong: a repeated id, a pair naming an unknown document or one document
/// twice, a pair listed twice.
#[derive(Debug)]
pub struct EvalSetBuilder {
    set: EvalSet,
    index: HashMap<String, u32>,
    group_index: HashMap<String, u32>,
    pairs: HashMap<(u32, u32), ()>,
    category_index: HashMap<(String, Option<u64>, bool), u32>,
}

impl EvalSetBuilder {
    /// An empty set named `name` whose unlisted pairs count as `unlisted` says.
    pub fn new(name: impl Into<String>, unlisted: Unlisted) -> Self {
        EvalSetBuilder {
            set: EvalSet {
                name: name.into(),
                ids: Vec::new(),
                texts: Vec::new(),
                groups: Vec::new(),
                meta: Vec::new(),
                listed: Vec::new(),
                categories: Vec::new(),
                unlisted,
            },
            index: HashMap::new(),
            group_index: HashMap::new(),
            pairs: HashMap::new(),
            category_index: HashMap::new(),
        }
    }

    /// Adds a document.
    ///
    /// # Errors
    /// [`Error::InvalidEvalSet`] when the id is already taken.
    pub fn doc(
        &mut self,
        id: impl Into<String>,
        text: impl Into<String>,
        group: Option<&str>,
        meta: Vec<String>,
    ) -> Result<()> {
        let id = id.into();
        let number = self.set.ids.len() as u32;
        if self.index.contains_key(&id) {
            return Err(invalid(format!("document id {id:?} appears twice")));
        }
        // Named groups and the documents without one share the number space: a document
        // without a group gets a number no named group will take.
        let group = match group {
            Some(name) => {
                let next = self.group_index.len() as u32;
                *self.group_index.entry(name.to_owned()).or_insert(next)
            }
            None => u32::MAX - number,
        };
        self.index.insert(id.clone(), number);
        self.set.ids.push(id);
        self.set.texts.push(text.into());
        self.set.groups.push(group);
        self.set.meta.push(meta);
        Ok(())
    }

    /// Lists a pair of documents added before.
    ///
    /// # Errors
    /// [`Error::InvalidEvalSet`] when either id is unknown, both are the same document, the
    /// pair is listed already, or the rate is not a number in `[0, 1]`.
    pub fn pair(
        &mut self,
        a: &str,
        b: &str,
        label: Option<bool>,
        kind: Option<&str>,
        rate: Option<f64>,
    ) -> Result<()> {
        let find = |id: &str| {
            self.index
                .get(id)
                .copied()
                .ok_or_else(|| invalid(format!("pair names unknown document {id:?}")))
        };
        let (a, b) = (find(a)?, find(b)?);
        if a == b {
            return Err(invalid(format!(
                "pair names document {:?} twice",
                self.set.ids[a as usize]
            )));
        }
        if let Some(rate) = rate {
            if !(0.0..=1.0).contains(&rate) {
                return Err(invalid(format!("rate {rate} is not in [0, 1]")));
            }
        }
        let (a, b) = (a.min(b), a.max(b));
        if self.pairs.insert((a, b), ()).is_some() {
            return Err(invalid(format!(
                "pair {:?} {:?} is listed twice",
                self.set.ids[a as usize], self.set.ids[b as usize]
            )));
        }
        let category = label.map(|label| {
            let kind = kind.unwrap_or_default().to_owned();
            let key = (kind.clone(), rate.map(f64::to_bits), label);
            let next = self.set.categories.len() as u32;
            *self.category_index.entry(key).or_insert_with(|| {
                self.set.categories.push(Category { kind, rate, label });
                next
            })
        });
        self.set.listed.push(ListedPair {
            a,
            b,
            label,
            category,
        });
        Ok(())
    }

    /// The set.
    pub fn build(self) -> EvalSet {
        self.set
    }
}

fn invalid(reason: String) -> Error {
    Error::InvalidEvalSet { reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_groups() -> EvalSetBuilder {
        let mut set = EvalSetBuilder::new("t", Unlisted::Negative);
        set.doc("a", "x", Some("g"), vec![]).unwrap();
        set.doc("a2", "x", Some("g"), vec![]).unwrap();
        set.doc("b", "y", None, vec![]).unwrap();
        set.doc("c", "z", None, vec![]).unwrap();
        set
    }

    #[test]
    fn unlisted_pairs_follow_groups() {
        let set = two_groups().build();
        assert_eq!(set.unlisted_label(0, 1), None);
        assert_eq!(set.unlisted_label(0, 2), Some(false));
        assert_eq!(set.unlisted_label(2, 3), Some(false));
        let mut by_group = EvalSetBuilder::new("t", Unlisted::Group);
        by_group.doc("a", "x", Some("g"), vec![]).unwrap();
        by_group.doc("b", "x", Some("g"), vec![]).unwrap();
        by_group.doc("c", "x", Some("h"), vec![]).unwrap();
        let set = by_group.build();
        assert_eq!(set.unlisted_label(0, 1), Some(true));
        assert_eq!(set.unlisted_label(1, 2), Some(false));
    }

    #[test]
    fn bad_pairs_are_refused() {
        let mut set = two_groups();
        assert!(set.doc("a", "again", None, vec![]).is_err());
        assert!(set.pair("a", "nope", Some(true), None, None).is_err());
        assert!(set.pair("a", "a", Some(true), None, None).is_err());
        assert!(set.pair("a", "b", Some(true), None, Some(1.5)).is_err());
        set.pair("a", "b", Some(true), Some("insert"), Some(0.1))
            .unwrap();
        assert!(set.pair("b", "a", Some(false), None, None).is_err());
        set.pair("a", "c", Some(true), Some("insert"), Some(0.1))
            .unwrap();
        set.pair("b", "c", None, None, None).unwrap();
        let set = set.build();
        assert_eq!(set.categories().len(), 1);
        assert_eq!(set.listed()[0].category, Some(0));
        assert_eq!(set.listed()[1].category, Some(0));
        assert_eq!(set.listed()[2].category, None);
    }
}
