//! A [`Variant`] in the match runner's JSON files (the match configuration,
//! a match's state file, an SPSA run's state): its fields, checked by the
//! rules when read back. Used through `#[serde(serialize_with = …,
//! deserialize_with = …)]`.

use crate::core::{Variant, VariantKind};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A variant's fields as the JSON files hold them.
#[derive(Serialize, Deserialize)]
struct StoredVariant {
    kind: String,
    layers: u8,
    white_layer: u8,
    black_layer: u8,
    en_passant: bool,
    castling: bool,
}

/// `#[serde(serialize_with = …)]` for a [`Variant`]: its fields.
pub fn serialize_variant<S: Serializer>(v: &Variant, s: S) -> Result<S::Ok, S::Error> {
    StoredVariant {
        kind: v.kind.name().to_string(),
        layers: v.layers,
        white_layer: v.white_layer,
        black_layer: v.black_layer,
        en_passant: v.en_passant,
        castling: v.castling,
    }
    .serialize(s)
}

/// `#[serde(deserialize_with = …)]` for a [`Variant`]: the fields read back into a variant the rules accept.
pub fn deserialize_variant<'de, D: Deserializer<'de>>(d: D) -> Result<Variant, D::Error> {
    let v = StoredVariant::deserialize(d)?;
    let kind: VariantKind = v.kind.parse().map_err(|_| serde::de::Error::custom("unknown variant"))?;
    match kind {
        VariantKind::Hdc => Ok(Variant::hdc()),
        VariantKind::Haberkorn => Variant::haberkorn_with(
            v.layers,
            v.white_layer.saturating_add(1),
            v.black_layer.saturating_add(1),
            v.en_passant,
            v.castling,
        )
        .map_err(serde::de::Error::custom),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_round_trip_and_bad_ones_are_refused() {
        #[derive(Serialize, Deserialize)]
        struct V(#[serde(serialize_with = "serialize_variant", deserialize_with = "deserialize_variant")] Variant);
        let h = Variant::haberkorn_with(4, 1, 3, true, false).unwrap();
        for v in [Variant::hdc(), h] {
            let text = serde_json::to_string(&V(v)).unwrap();
            assert_eq!(serde_json::from_str::<V>(&text).unwrap().0, v);
        }
        let bad =
            r#"{"kind":"haberkorn","layers":40,"white_layer":0,"black_layer":1,"en_passant":false,"castling":false}"#;
        assert!(serde_json::from_str::<V>(bad).is_err());
        assert!(serde_json::from_str::<V>(&bad.replace("haberkorn", "chess")).is_err());
    }
}
