//! [`SortValue`]: the value a hit was ranked by, typed by its fast field as
//! `TopDocs::order_by_fast_field::<T>` types it.

use serde::{Deserialize, Serialize};
use tantivy::columnar::{ColumnType, MonotonicallyMappableToU64};
use tantivy::fastfield::FastValue;
use tantivy::schema::{OwnedValue, Type};
use tantivy::DateTime;

/// A hit's value in the fast field a collector ranks by
/// ([`order_by_fast_field`](crate::plugin::DedupCollector::order_by_fast_field)), of the field's
/// type. [`get`](Self::get) gives it as the Rust type `TopDocs::order_by_fast_field::<T>`
/// gives for the field; `match` tells the types apart.
///
/// ```
/// use tantivy::DateTime;
/// use tantivy_dedup::plugin::SortValue;
///
/// let published = SortValue::Date(DateTime::from_timestamp_secs(1_700_000_000));
/// assert_eq!(published.get::<DateTime>(), Some(DateTime::from_timestamp_secs(1_700_000_000)));
/// assert_eq!(published.get::<i64>(), None); // a date, not an i64
/// ```
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize, Deserialize)]
#[non_exhaustive]
pub enum SortValue {
    /// Of a `u64` field.
    U64(u64),
    /// Of an `i64` field.
    I64(i64),
    /// Of an `f64` field.
    F64(f64),
    /// Of a `bool` field.
    Bool(bool),
    /// Of a date field.
    Date(DateTime),
}

impl SortValue {
    /// The value of a column of `column_type` whose `u64` form is `value`; `None` for a
    /// type the collector does not rank by.
    pub(crate) fn of(value: u64, column_type: ColumnType) -> Option<SortValue> {
        Some(match column_type {
            ColumnType::U64 => SortValue::U64(value),
            ColumnType::I64 => SortValue::I64(i64::from_u64(value)),
            ColumnType::F64 => SortValue::F64(f64::from_u64(value)),
            ColumnType::Bool => SortValue::Bool(bool::from_u64(value)),
            ColumnType::DateTime => SortValue::Date(DateTime::from_u64(value)),
            ColumnType::Bytes | ColumnType::Str | ColumnType::IpAddr => return None,
        })
    }

    /// The value as `T` (`u64`, `i64`, `f64`, `bool` or [`DateTime`]), when the field is
    /// of that type; `None` when it is of another (no conversion: an `i64` field's value is
    /// not read as a `u64`).
    #[must_use]
    pub fn get<T: FastValue>(self) -> Option<T> {
        let (value_type, bits) = match self {
            SortValue::U64(value) => (Type::U64, value.to_u64()),
            SortValue::I64(value) => (Type::I64, value.to_u64()),
            SortValue::F64(value) => (Type::F64, value.to_u64()),
            SortValue::Bool(value) => (Type::Bool, value.to_u64()),
            SortValue::Date(value) => (Type::Date, value.to_u64()),
        };
        // The `u64` forms are tantivy's own, so one type's form read back as that type is
        // the value itself.
        (T::to_type() == value_type).then(|| T::from_u64(bits))
    }
}

impl From<SortValue> for OwnedValue {
    fn from(value: SortValue) -> OwnedValue {
        match value {
            SortValue::U64(value) => OwnedValue::U64(value),
            SortValue::I64(value) => OwnedValue::I64(value),
            SortValue::F64(value) => OwnedValue::F64(value),
            SortValue::Bool(value) => OwnedValue::Bool(value),
            SortValue::Date(value) => OwnedValue::Date(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_typed_by_their_column() {
        let of = SortValue::of;
        assert_eq!(
            of((-7i64).to_u64(), ColumnType::I64),
            Some(SortValue::I64(-7))
        );
        assert_eq!(
            of(2.5f64.to_u64(), ColumnType::F64),
            Some(SortValue::F64(2.5))
        );
        assert_eq!(of(1, ColumnType::Bool), Some(SortValue::Bool(true)));
        assert_eq!(of(1, ColumnType::Str), None);
    }

    #[test]
    fn get_gives_the_value_of_its_own_type_only() {
        assert_eq!(SortValue::I64(-7).get::<i64>(), Some(-7));
        assert_eq!(SortValue::I64(-7).get::<u64>(), None);
        assert_eq!(SortValue::U64(7).get::<u64>(), Some(7));
        assert_eq!(SortValue::F64(-0.5).get::<f64>(), Some(-0.5));
        assert_eq!(SortValue::Bool(false).get::<bool>(), Some(false));
        let date = DateTime::from_timestamp_nanos(-3);
        assert_eq!(SortValue::Date(date).get::<DateTime>(), Some(date));
        assert_eq!(SortValue::Date(date).get::<i64>(), None);
    }
}
