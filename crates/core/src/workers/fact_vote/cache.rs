//! The examples' vectors in a file: a count and a length (u32 each, little
//! endian), then the numbers (f32, little endian). Read back only when both
//! match what is expected and every vector is of length 1 (as written);
//! written whole to a temporary file first, so a killed process leaves no
//! half file and two writers never mix.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// `count` vectors from `file`, or `None` (absent, cut short, another
/// shape, not finite).
pub(super) fn read(file: &Path, count: usize) -> Option<Vec<Vec<f32>>> {
    let bytes = std::fs::read(file).ok()?;
    let word = |i: usize| -> Option<[u8; 4]> { bytes.get(i * 4..i * 4 + 4)?.try_into().ok() };
    let held = u32::from_le_bytes(word(0)?) as usize;
    let dims = u32::from_le_bytes(word(1)?) as usize;
    let numbers = count.checked_mul(dims)?;
    if held != count || dims == 0 || Some(bytes.len()) != numbers.checked_mul(4)?.checked_add(8) {
        return None;
    }
    let numbers: Vec<f32> = (0..numbers)
        .map(|i| word(2 + i).map(f32::from_le_bytes))
        .collect::<Option<_>>()?;
    let vectors: Vec<Vec<f32>> = numbers.chunks(dims).map(<[f32]>::to_vec).collect();
    let unit = |v: &Vec<f32>| (v.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-3;
    vectors.iter().all(unit).then_some(vectors)
}

/// Writes `vectors` (all of one length) to `file`.
pub(super) fn write(file: &Path, vectors: &[Vec<f32>]) -> std::io::Result<()> {
    let dims = vectors.first().map_or(0, Vec::len);
    let mut bytes = Vec::with_capacity(8 + vectors.len() * dims * 4);
    let count = u32::try_from(vectors.len()).map_err(std::io::Error::other)?;
    let width = u32::try_from(dims).map_err(std::io::Error::other)?;
    bytes.extend(count.to_le_bytes());
    bytes.extend(width.to_le_bytes());
    for x in vectors.iter().flatten() {
        bytes.extend(x.to_le_bytes());
    }
    // A temporary name of this write's own: two writers (processes, or two
    // votes in one) never share one.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let tmp = file.with_extension(format!("{}-{n}.tmp", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(&bytes)?;
        f.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&tmp, file)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}
