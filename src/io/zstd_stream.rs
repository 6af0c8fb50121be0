//! A zstd stream that salvages everything before a break.
//!
//! # Why not `zstd::stream::read::Decoder`
//! `ZSTD_decompressStream` reports an error without saying how much it had written into the
//! output in the same call, and a call given plenty of input decodes many blocks; the bytes
//! of every block decoded in the failing call were lost (up to the reader's buffer, 1 MiB
//! with our `BufReader`), so what survived a break depended on buffer sizes: `run` and
//! `inspect` saw the break at different offsets, and a file broken inside its first MiB read
//! as unreadable from byte 0.
//!
//! # Contract
//! - This reader walks the frame format (RFC 8878) itself and hands the decoder one step at
//!   a time: a frame header, a block header, one block's content, a checksum. The decoder
//!   therefore decodes at most one block per call, and new input is given only once every
//!   byte decoded so far has been flushed to us. A call that fails has written nothing, so
//!   the bytes handed out before an error are exactly the content of every block before the
//!   broken one (whatever the buffer sizes or the window of the map).
//! - A frame never reaches the decoder whole, so zstd's single-pass shortcut (all or nothing
//!   for a frame) is never taken.
//! - Windows up to [`MAX_WINDOW`] (2 GiB, `zstd --long=31`) are decoded; a frame asking for
//!   more is a break whose reason names the window.
//! - After a break, [`BufRead::fill_buf`] returns the error (every time); before it, every
//!   decoded byte. A content checksum mismatch is reported after the frame's content, which
//!   was handed out: the reason says so.

use std::io::{self, BufRead, Read};

/// The largest window decoded: 2 GiB (`zstd --long=31`, zstd's `window_log_max` 31).
pub const MAX_WINDOW: u64 = 1 << 31;
/// Output buffered at a time (zstd's largest block).
const OUT_CAP: usize = 128 << 10;
/// zstd frame magic number.
const MAGIC: u32 = 0xFD2F_B528;
/// The longest frame header (magic, descriptor, window, dictionary id, content size).
const MAX_HEADER: usize = 18;

/// What the next input bytes of the compressed stream are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// A frame (or skippable frame) begins, or the stream ends.
    FrameStart,
    /// A block header of a frame whose content has a checksum (`true`) or not.
    BlockHeader { checksum: bool },
    /// `left` bytes of a block's content; then the next block, the checksum or the end.
    BlockBody {
        left: u64,
        last: bool,
        checksum: bool,
    },
    /// `left` bytes of a checksum or of a skippable frame's data.
    Tail { left: u64 },
    /// Not a frame this reader knows (a legacy frame or garbage): the decoder gets the rest
    /// as it comes and says what it is.
    Bulk,
}

/// A frame header, as far as this reader needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameHeader {
    /// Bytes of the header, magic included.
    pub len: usize,
    /// The window the decoder must keep (bytes).
    pub window: u64,
    /// Whether a content checksum follows the last block.
    pub checksum: bool,
    /// The content size the header declares, if it does.
    pub content_size: Option<u64>,
}

/// Parses a zstd frame header from its first bytes: `Ok(None)` when `head` is too short to
/// tell, `Err` when it is not a zstd frame header.
pub fn parse_frame_header(head: &[u8]) -> Result<Option<FrameHeader>, String> {
    let Some(magic) = head.get(..4) else {
        return Ok(None);
    };
    if magic != MAGIC.to_le_bytes() {
        return Err("not a zstd frame".into());
    }
    let Some(&fhd) = head.get(4) else {
        return Ok(None);
    };
    let single = fhd & 0x20 != 0;
    let did_len = [0, 1, 2, 4][(fhd & 3) as usize];
    let fcs_len = match fhd >> 6 {
        0 => single as usize,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let wd_len = (!single) as usize;
    let len = 5 + wd_len + did_len + fcs_len;
    if head.len() < len {
        return Ok(None);
    }
    let content_size = (fcs_len > 0).then(|| {
        let mut v = [0u8; 8];
        v[..fcs_len].copy_from_slice(&head[len - fcs_len..len]);
        u64::from_le_bytes(v) + if fcs_len == 2 { 256 } else { 0 }
    });
    let window = if let (true, Some(size)) = (single, content_size) {
        size
    } else {
        let wd = head[5];
        let base = 1u64 << (10 + (wd >> 3));
        base + (base / 8) * (wd & 7) as u64
    };
    Ok(Some(FrameHeader {
        len,
        window,
        checksum: fhd & 4 != 0,
        content_size,
    }))
}

/// The first frame header of a zstd file's bytes (`None` if they do not start with one).
pub fn first_frame_header(bytes: &[u8]) -> Option<FrameHeader> {
    parse_frame_header(bytes).ok().flatten()
}

/// A [`BufRead`] of the decompressed bytes of a zstd stream read from `R` (see the module
/// contract).
pub struct SalvagingDecoder<R: BufRead> {
    inner: R,
    dctx: zstd::zstd_safe::DCtx<'static>,
    out: Box<[u8]>,
    pos: usize,
    filled: usize,
    step: Step,
    /// The last decoder call filled the output: it may hold more to flush before new input.
    flush_pending: bool,
    /// The last decoder call finished a frame.
    frame_done: bool,
    /// The break: handed out once the bytes before it are read.
    error: Option<String>,
    /// The stream ended cleanly.
    done: bool,
    /// Compressed bytes consumed, where the current frame and block began.
    compressed: u64,
    frame_start: u64,
    block_start: u64,
    /// Bytes decoded in the current frame, and what its header says they must come to
    /// (checked when the next frame starts: the streaming decoder skips that check for a
    /// frame ending in an empty block).
    frame_out: u64,
    declared: Option<u64>,
}

/// One decoder call: (input consumed, output written, zstd's hint) or zstd's error name.
fn run(
    dctx: &mut zstd::zstd_safe::DCtx<'static>,
    out: &mut [u8],
    input: &[u8],
) -> Result<(usize, usize, usize), &'static str> {
    let mut inb = zstd::zstd_safe::InBuffer::around(input);
    let mut outb = zstd::zstd_safe::OutBuffer::around(out);
    match dctx.decompress_stream(&mut outb, &mut inb) {
        Ok(hint) => Ok((inb.pos(), outb.pos(), hint)),
        Err(code) => Err(zstd::zstd_safe::get_error_name(code)),
    }
}

impl<R: BufRead> SalvagingDecoder<R> {
    /// A decoder reading the compressed stream from `inner`.
    pub fn new(inner: R) -> io::Result<Self> {
        let mut dctx = zstd::zstd_safe::DCtx::try_create()
            .ok_or_else(|| io::Error::other("zstd: cannot allocate a decoder"))?;
        dctx.set_parameter(zstd::zstd_safe::DParameter::WindowLogMax(31))
            .map_err(|c| io::Error::other(zstd::zstd_safe::get_error_name(c)))?;
        Ok(SalvagingDecoder {
            inner,
            dctx,
            out: vec![0u8; OUT_CAP].into_boxed_slice(),
            pos: 0,
            filled: 0,
            step: Step::FrameStart,
            flush_pending: false,
            frame_done: false,
            error: None,
            done: false,
            compressed: 0,
            frame_start: 0,
            block_start: 0,
            frame_out: 0,
            declared: None,
        })
    }

    /// Books the outcome of a decoder call: the input it consumed, or the break.
    fn book(&mut self, result: Result<(usize, usize, usize), &'static str>) -> Option<usize> {
        match result {
            Ok((used, written, hint)) => {
                self.filled += written;
                self.frame_out += written as u64;
                self.flush_pending = self.filled == self.out.len();
                self.frame_done = hint == 0;
                Some(used)
            }
            Err(name) if name.contains("checksum") => {
                self.fail(format!(
                    "zstd: {name} (frame at compressed byte {}): its content was read, but \
                     some of its records may be corrupt",
                    self.frame_start
                ));
                None
            }
            Err(name) => {
                self.fail(format!(
                    "zstd: {name} (block at compressed byte {}, frame at compressed byte {})",
                    self.block_start, self.frame_start
                ));
                None
            }
        }
    }

    fn fail(&mut self, reason: String) {
        if self.error.is_none() {
            self.error = Some(reason);
        }
    }

    /// Copies the compressed stream into `buf[have..n]` (less at its end); returns the new
    /// length.
    fn take(&mut self, buf: &mut [u8; MAX_HEADER], have: usize, n: usize) -> io::Result<usize> {
        let mut have = have;
        while have < n {
            let avail = self.inner.fill_buf()?;
            if avail.is_empty() {
                break;
            }
            let k = avail.len().min(n - have);
            buf[have..have + k].copy_from_slice(&avail[..k]);
            self.inner.consume(k);
            self.compressed += k as u64;
            have += k;
        }
        Ok(have)
    }

    /// Reads a frame header (or a skippable frame's) and feeds it to the decoder.
    fn feed_frame_start(&mut self) -> io::Result<()> {
        if let Some(declared) = self.declared.take() {
            if self.frame_out != declared {
                self.fail(format!(
                    "zstd: the frame at compressed byte {} declares {declared} bytes of \
                     content but holds {}",
                    self.frame_start, self.frame_out
                ));
                return Ok(());
            }
        }
        self.frame_out = 0;
        let mut head = [0u8; MAX_HEADER];
        self.frame_start = self.compressed;
        self.block_start = self.compressed;
        let mut have = self.take(&mut head, 0, 4)?;
        if have == 0 {
            self.done = true;
            return Ok(());
        }
        if have < 4 {
            self.fail(format!(
                "{have} byte(s) after the last zstd frame, at compressed byte {}, are no frame",
                self.frame_start
            ));
            return Ok(());
        }
        let magic = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        if magic & 0xFFFF_FFF0 == 0x184D_2A50 {
            // A skippable frame: 4 bytes of size, then that much data the decoder skips.
            have = self.take(&mut head, have, 8)?;
            let size = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
            self.step = Step::Tail { left: size as u64 };
            return self.feed_small(&head[..have], 8);
        }
        if magic != MAGIC {
            self.step = Step::Bulk;
            return self.feed_small(&head[..have], 4);
        }
        let header = loop {
            match parse_frame_header(&head[..have]) {
                Ok(Some(h)) => break h,
                Ok(None) => {
                    let more = self.take(&mut head, have, (have + 1).max(6))?;
                    if more == have {
                        return self.feed_small(&head[..have], MAX_HEADER);
                    }
                    have = more;
                }
                Err(e) => return Err(io::Error::other(e)),
            }
        };
        if header.window > MAX_WINDOW {
            self.fail(format!(
                "zstd: the frame at compressed byte {} needs a {} MiB window; posfilter \
                 decodes windows up to {} MiB (zstd --long=31)",
                self.frame_start,
                header.window >> 20,
                MAX_WINDOW >> 20
            ));
            return Ok(());
        }
        have = self.take(&mut head, have, header.len)?;
        self.declared = header.content_size;
        self.step = Step::BlockHeader {
            checksum: header.checksum,
        };
        self.feed_small(&head[..have], header.len)
    }

    /// Feeds bytes copied out of the stream (a header, never with output pending); `want`
    /// of them make the whole step: fewer means the file ended inside it.
    fn feed_small(&mut self, bytes: &[u8], want: usize) -> io::Result<()> {
        let mut at = 0;
        while at < bytes.len() && self.error.is_none() {
            let result = run(&mut self.dctx, &mut self.out[self.filled..], &bytes[at..]);
            match self.book(result) {
                Some(0) => self.fail("zstd: the decoder refused a header".into()),
                Some(n) => at += n,
                None => return Ok(()),
            }
        }
        if bytes.len() < want {
            self.truncated();
        }
        Ok(())
    }

    fn truncated(&mut self) {
        self.fail(format!(
            "zstd: the file ends inside the frame at compressed byte {} (truncated)",
            self.frame_start
        ));
    }

    /// Reads and feeds a block header, setting up the block's content as the next step.
    fn feed_block_header(&mut self, checksum: bool) -> io::Result<()> {
        let mut head = [0u8; MAX_HEADER];
        self.block_start = self.compressed;
        let have = self.take(&mut head, 0, 3)?;
        if have == 3 {
            let h = u32::from_le_bytes([head[0], head[1], head[2], 0]);
            let size = (h >> 3) as u64;
            // An RLE block holds one byte; the others their size.
            let left = if (h >> 1) & 3 == 1 { 1 } else { size };
            self.step = Step::BlockBody {
                left,
                last: h & 1 != 0,
                checksum,
            };
        }
        self.feed_small(&head[..have], 3)
    }

    /// Feeds up to `left` bytes straight from the map: how many were consumed, `None` at the
    /// end of the compressed stream.
    fn feed_direct(&mut self, left: u64) -> io::Result<Option<u64>> {
        let avail = self.inner.fill_buf()?;
        if avail.is_empty() {
            return Ok(None);
        }
        let n = (avail.len() as u64).min(left) as usize;
        let result = run(&mut self.dctx, &mut self.out[self.filled..], &avail[..n]);
        let before = self.filled;
        let used = self.book(result).unwrap_or(0);
        if used == 0 && self.filled == before && !self.flush_pending {
            // Cannot happen with a well-behaved decoder; never loop on it.
            self.fail("zstd: the decoder takes no more input".into());
        }
        self.inner.consume(used);
        self.compressed += used as u64;
        Ok(Some(used as u64))
    }

    /// Feeds the rest of a block, checksum or skippable frame (`left` bytes) and moves to
    /// the step after it (`then`) once it is all in.
    fn feed_rest(&mut self, left: u64, more: impl Fn(u64) -> Step, then: Step) -> io::Result<()> {
        match self.feed_direct(left)? {
            None => self.truncated(),
            Some(used) if used == left => self.step = then,
            Some(used) => self.step = more(left - used),
        }
        Ok(())
    }

    /// Decodes until the output buffer is full, the stream ends or breaks.
    fn refill(&mut self) -> io::Result<()> {
        self.pos = 0;
        self.filled = 0;
        while self.filled < self.out.len() && self.error.is_none() && !self.done {
            if self.flush_pending {
                // Hand out what the decoder holds before giving it anything new.
                let result = run(&mut self.dctx, &mut self.out[self.filled..], &[]);
                self.book(result);
                continue;
            }
            match self.step {
                Step::FrameStart => self.feed_frame_start()?,
                Step::BlockHeader { checksum } => self.feed_block_header(checksum)?,
                Step::BlockBody {
                    left,
                    last,
                    checksum,
                } => {
                    let then = match (last, checksum) {
                        (false, _) => Step::BlockHeader { checksum },
                        (true, true) => Step::Tail { left: 4 },
                        (true, false) => Step::FrameStart,
                    };
                    let more = |left| Step::BlockBody {
                        left,
                        last,
                        checksum,
                    };
                    if left == 0 {
                        self.step = then;
                    } else {
                        self.feed_rest(left, more, then)?;
                    }
                }
                Step::Tail { left: 0 } => self.step = Step::FrameStart,
                Step::Tail { left } => {
                    self.feed_rest(left, |left| Step::Tail { left }, Step::FrameStart)?
                }
                Step::Bulk => match self.feed_direct(u64::MAX)? {
                    None if self.frame_done => self.done = true,
                    None => self.truncated(),
                    Some(_) => {}
                },
            }
        }
        Ok(())
    }
}

impl<R: BufRead> BufRead for SalvagingDecoder<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.filled {
            if let Some(e) = &self.error {
                return Err(io::Error::new(io::ErrorKind::InvalidData, e.clone()));
            }
            self.refill()?;
            if self.filled == 0 {
                if let Some(e) = &self.error {
                    return Err(io::Error::new(io::ErrorKind::InvalidData, e.clone()));
                }
            }
        }
        Ok(&self.out[self.pos..self.filled])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.filled);
    }
}

impl<R: BufRead> Read for SalvagingDecoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}
