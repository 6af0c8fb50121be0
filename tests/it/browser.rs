//! report.html in a real browser: Debian's headless Chromium, driven through ChromeDriver
//! (W3C WebDriver over HTTP on loopback, spoken here with std's TcpStream), opens the
//! bundled sample's report.html from disk, takes a screenshot, and fails on any console
//! error, on anything the page fetches, and on a plot that is missing or draws nothing.
//!
//! The checks are first shown to fail: a page that logs a console error and a report with
//! one plot cut out must both be caught.
//!
//! Needs `chromium` and `chromium-driver` (Debian packages; `.ci/run` installs them). Without
//! them the test says so and passes, unless `POSFILTER_REQUIRE_BROWSER` is set (CI sets it).
//! `POSFILTER_SCREENSHOT=path.png` keeps the screenshot there (docs/report.png is made so).

use crate::report::sample_run;
use crate::support::TempDir;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Chromium's flags for a root user on a closed network (see the module doc).
const CHROMIUM_FLAGS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
];

/// A ChromeDriver process and one browser session; both end on drop.
struct Browser {
    driver: Child,
    port: u16,
    session: String,
    _profile: TempDir,
}

/// One HTTP/1.1 request to `127.0.0.1:port`; the response's JSON body (`Value::Null` if it
/// has none). ChromeDriver keeps the connection open whatever the request says, so the
/// body is read to its `Content-Length` (or to the last chunk).
fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> std::io::Result<Value> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(120)))?;
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    let complete = |raw: &[u8]| -> Option<Vec<u8>> {
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
        let head = String::from_utf8_lossy(&raw[..split]).to_lowercase();
        let rest = &raw[split + 4..];
        let length = head.lines().find_map(|l| {
            let v = l.strip_prefix("content-length:")?;
            v.trim().parse::<usize>().ok()
        });
        match length {
            Some(n) => (rest.len() >= n).then(|| rest[..n].to_vec()),
            None => rest.ends_with(b"0\r\n\r\n").then(|| dechunk(rest)),
        }
    };
    let payload = loop {
        let n = s.read(&mut buf)?;
        raw.extend_from_slice(&buf[..n]);
        if let Some(p) = complete(&raw) {
            break p;
        }
        if n == 0 {
            return Err(std::io::Error::other("connection closed mid-response"));
        }
    };
    if payload.is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_slice(&payload).map_err(std::io::Error::other)
}

/// The body of a chunked HTTP response.
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = raw.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&raw[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 || raw.len() < eol + 4 + size {
            break;
        }
        out.extend_from_slice(&raw[eol + 2..eol + 2 + size]);
        raw = &raw[eol + 2 + size + 2..];
    }
    out
}

/// Standard base64 (the screenshot's encoding) to bytes.
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = text
        .bytes()
        .filter(|c| !matches!(c, b'=' | b'\n' | b'\r'))
        .collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut acc = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            acc |= u32::from(value(*c)) << (18 - 6 * i);
        }
        out.extend_from_slice(&acc.to_be_bytes()[1..chunk.len()]);
    }
    out
}

impl Browser {
    /// Starts ChromeDriver and a headless Chromium session; `None` if they are not installed.
    fn start() -> Option<Browser> {
        let (chromium, driver) = (
            Path::new("/usr/bin/chromium"),
            Path::new("/usr/bin/chromedriver"),
        );
        if !chromium.exists() || !driver.exists() {
            let why = "headless Chromium and ChromeDriver are not installed \
                       (apt-get install chromium chromium-driver)";
            assert!(
                std::env::var_os("POSFILTER_REQUIRE_BROWSER").is_none(),
                "{why}"
            );
            crate::support::skipped(why);
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let profile = TempDir::new("chromium-profile");
        let mut browser = Browser {
            driver: child,
            port,
            session: String::new(),
            _profile: profile,
        };
        let ready = Instant::now();
        while http(port, "GET", "/status", None).is_err() {
            assert!(
                ready.elapsed() < Duration::from_secs(30),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|s| s.to_string()).collect();
        args.push(format!("--user-data-dir={}", browser._profile.0.display()));
        args.push("--window-size=1100,900".into());
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": args},
            "goog:loggingPrefs": {"browser": "ALL"},
        }}});
        let session = http(port, "POST", "/session", Some(&caps)).unwrap();
        browser.session = session["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {session}"))
            .to_string();
        Some(browser)
    }

    /// A WebDriver command of this session; its `value`.
    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        let reply = http(self.port, method, &path, body.as_ref()).unwrap();
        if reply["value"].get("error").is_some() {
            panic!("{method} {path}: {}", reply["value"]);
        }
        reply["value"].clone()
    }

    /// Opens `url` and waits for it to load.
    fn open(&self, url: &str) {
        self.command("POST", "/url", Some(json!({ "url": url })));
    }

    /// Runs `script` in the page; its return value.
    fn eval(&self, script: &str) -> Value {
        self.command(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// Console messages at level SEVERE (errors) since the last call.
    fn console_errors(&self) -> Vec<String> {
        let log = self.command("POST", "/se/log", Some(json!({"type": "browser"})));
        log.as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| e["message"].as_str().unwrap_or("").to_string())
            .collect()
    }

    /// A PNG of the whole page (the window made as tall as the document first).
    fn screenshot(&self) -> Vec<u8> {
        let height = self.eval("return document.documentElement.scrollHeight;");
        let height = height.as_u64().unwrap_or(900).clamp(300, 16_000);
        self.command(
            "POST",
            "/window/rect",
            Some(json!({"width": 1100, "height": height + 140})),
        );
        let png = self.command("GET", "/screenshot", None);
        base64(png.as_str().unwrap())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let path = format!("/session/{}", self.session);
            let _ = http(self.port, "DELETE", &path, None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// In the page: every plot's id, its drawn size, its marks for non-zero values and how many
/// of those have no drawn size; scripts, links, images and fetched resources.
const INSPECT: &str = r#"
const plots = [...document.querySelectorAll('figure.plot')].map(f => {
  const svg = f.querySelector('svg');
  const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
  const marks = svg ? [...svg.querySelectorAll('[data-n],[data-y]')] : [];
  const live = marks.filter(m => Number(m.dataset.n ?? m.dataset.y) > 0);
  const empty = live.filter(m => { const b = m.getBBox(); return !(b.width > 0 && b.height > 0); });
  return {id: f.dataset.plot, width: box.width, height: box.height, marks: live.length, empty: empty.length};
});
return {
  plots,
  scripts: document.scripts.length,
  external: document.querySelectorAll('[src],[href],link,img,iframe,object').length,
  fetched: performance.getEntriesByType('resource').map(r => r.name),
};
"#;

/// The plots `page` must hold, from its report.json alone.
fn expected_plots(report: &Value) -> Vec<String> {
    let mut plots = vec!["decisions".to_string()];
    let d = &report["records"]["dropped"];
    if d["mate"].as_u64().unwrap_or(0) + d["mated"].as_u64().unwrap_or(0) > 0 {
        plots.push("mate-length".into());
        plots.push("budget".into());
    }
    let micros = report["histograms"]["micros"].as_object();
    if micros.is_some_and(|m| !m.is_empty()) {
        plots.push("timing".into());
    }
    if report["throughput"]
        .as_array()
        .is_some_and(|s| s.len() >= 2)
    {
        plots.push("throughput".into());
    }
    plots
}

/// What is wrong with the page open in `b`, given the plots it must hold.
fn problems(b: &Browser, expected: &[String]) -> Vec<String> {
    let mut wrong: Vec<String> = b
        .console_errors()
        .into_iter()
        .map(|m| format!("console error: {m}"))
        .collect();
    let page = b.eval(INSPECT);
    for key in ["scripts", "external"] {
        if page[key] != 0 {
            wrong.push(format!("{key}: {}", page[key]));
        }
    }
    if page["fetched"].as_array().is_some_and(|f| !f.is_empty()) {
        wrong.push(format!("fetched: {}", page["fetched"]));
    }
    let plots = page["plots"].as_array().cloned().unwrap_or_default();
    for id in expected {
        match plots.iter().find(|p| p["id"] == id.as_str()) {
            None => wrong.push(format!("plot {id} missing")),
            Some(p) if p["width"].as_f64() < Some(300.0) || p["height"].as_f64() < Some(80.0) => {
                wrong.push(format!("plot {id} drawn at {}x{}", p["width"], p["height"]))
            }
            Some(p) if p["marks"] == 0 || p["empty"] != 0 => wrong.push(format!(
                "plot {id}: {} marks, {} not drawn",
                p["marks"], p["empty"]
            )),
            Some(_) => {}
        }
    }
    wrong
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.canonicalize().unwrap().display())
}

#[test]
fn the_sample_report_renders_in_headless_chromium() {
    let Some(b) = Browser::start() else {
        return;
    };
    let out = sample_run();
    let report: Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let expected = expected_plots(&report);
    let tmp = TempDir::new("browser-pages");
    // The checks catch a console error ...
    let noisy = tmp.join("noisy.html");
    std::fs::write(
        &noisy,
        "<!DOCTYPE html><script>console.error('planted')</script>",
    )
    .unwrap();
    b.open(&file_url(&noisy));
    let found = problems(&b, &[]);
    assert!(found.iter().any(|p| p.contains("planted")), "{found:?}");
    // ... and a plot cut out of the page.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let (start, end) = (html.find("<svg").unwrap(), html.find("</svg>").unwrap() + 6);
    let cut = tmp.join("cut.html");
    std::fs::write(&cut, format!("{}{}", &html[..start], &html[end..])).unwrap();
    b.open(&file_url(&cut));
    let found = problems(&b, &expected);
    assert!(
        found.iter().any(|p| p.contains("plot decisions")),
        "{found:?}"
    );
    // The real page: no problem at all.
    b.open(&file_url(&out.join("report.html")));
    let found = problems(&b, &expected);
    assert!(found.is_empty(), "{found:?}");
    let png = b.screenshot();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert!(width >= 1000 && height >= 1500, "{width}x{height}");
    let keep = std::env::var_os("POSFILTER_SCREENSHOT").map(PathBuf::from);
    let path = keep.unwrap_or_else(|| tmp.join("report.png"));
    std::fs::write(&path, &png).unwrap();
    eprintln!(
        "screenshot of the sample report: {} ({width}x{height})",
        path.display()
    );
}
