//! The few protobuf wire-format reads `.sbk` needs: tags, varints, length-delimited fields.
//! Never panics; a truncated or malformed field is an error message.

/// A protobuf field value: a varint, or the bytes of a length-delimited field. Fixed
/// 32- and 64-bit fields are skipped (`.sbk` has none).
pub(crate) enum Value<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 2.
    Bytes(&'a [u8]),
    /// Wire types 1 and 5, skipped.
    Fixed,
}

/// Reads the fields of one message in order.
pub(crate) struct Fields<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Fields<'a> {
    /// The fields of the message `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> Fields<'a> {
        Fields { bytes, at: 0 }
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&b) = self.bytes.get(self.at) else {
                return Err(format!("varint truncated at byte {}", self.at));
            };
            self.at += 1;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(format!(
            "varint longer than 10 bytes before byte {}",
            self.at
        ))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end =
            end.ok_or_else(|| format!("field of {n} bytes at byte {} is truncated", self.at))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u32, Value<'a>), String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.bytes.len() {
            return None;
        }
        let field = (|| {
            let tag = self.varint()?;
            let number = u32::try_from(tag >> 3).map_err(|_| "field number too large")?;
            let value = match tag & 7 {
                0 => Value::Varint(self.varint()?),
                2 => {
                    let n = usize::try_from(self.varint()?).map_err(|_| "length too large")?;
                    Value::Bytes(self.take(n)?)
                }
                1 => {
                    self.take(8)?;
                    Value::Fixed
                }
                5 => {
                    self.take(4)?;
                    Value::Fixed
                }
                other => return Err(format!("unsupported wire type {other}")),
            };
            Ok((number, value))
        })();
        if field.is_err() {
            self.at = self.bytes.len();
        }
        Some(field)
    }
}
