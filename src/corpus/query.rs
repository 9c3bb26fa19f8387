//! Queries in tantivy's syntax, checked before tantivy parses them: its parser recurses
//! once per nested parenthesis, and a query of thousands overflows the stack (the process
//! aborts, with no error to return).

use crate::error::{Error, Result};

/// The deepest nesting of parentheses a query may have: more than people write by far.
pub const MAX_QUERY_NESTING: usize = 100;

/// The deepest nesting of parentheses in `query`, outside quoted phrases (where a
/// parenthesis is text), a backslash escaping the character after it.
pub fn nesting(query: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut quoted = false;
    let mut chars = query.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '"' => quoted = !quoted,
            '(' if !quoted => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' if !quoted => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Checks that `query` nests parentheses at most [`MAX_QUERY_NESTING`] deep.
///
/// # Errors
/// [`Error::QueryTooNested`] when it nests them deeper.
pub fn check_nesting(query: &str) -> Result<()> {
    let depth = nesting(query);
    if depth > MAX_QUERY_NESTING {
        return Err(Error::QueryTooNested {
            depth,
            max: MAX_QUERY_NESTING,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parentheses_count_outside_phrases() {
        assert_eq!(nesting("rust"), 0);
        assert_eq!(nesting("(a OR (b AND c)) -(d)"), 2);
        assert_eq!(nesting("\"((((\" AND (a)"), 1, "in a phrase, text");
        assert_eq!(nesting("\\(\\( (a)"), 1, "escaped, text");
        assert_eq!(nesting(")))((("), 3, "unbalanced: tantivy's parser says so");
        let deep = format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(nesting(&deep), 10_000);
        assert!(matches!(
            check_nesting(&deep),
            Err(Error::QueryTooNested {
                depth: 10_000,
                max: MAX_QUERY_NESTING
            })
        ));
        let fine = format!("{}a{}", "(".repeat(100), ")".repeat(100));
        assert!(check_nesting(&fine).is_ok());
    }
}
