//! The routebench peer runner of no router at all, in Rust
//! (docs/peer-protocol.md):
//!
//!     nop ROUTES_FILE REQUESTS_FILE
//!
//! The same protocol, loop and fold as matchit's runner, with a lookup that
//! returns a constant: its figure is the cost of a Rust runner's loop
//! itself, the floor under matchit's figure.  It takes every route; its
//! answers, checked like any runner's, are the requests file's EXPECTED
//! column, so it agrees wherever EXPECTED is linear's.
use std::io::{BufRead, Write};
use std::time::Instant;

/// One request: its method and path.
pub struct Request {
    method: String,
    path: String,
}

/// The lookup: a constant (not inlined, as a router's lookup is a call).
#[inline(never)]
fn lookup(method: &str, path: &str) -> u64 {
    std::hint::black_box((method, path));
    1
}

/// The timed loop: reps replays of every request, the sum of the lookup's
/// constant.  Its name is the protocol's (`--metric instructions`).
#[no_mangle]
#[inline(never)]
pub fn routebench_peer_loop(reqs: &[Request], reps: u64) -> u64 {
    let mut sum: u64 = 0;
    for _ in 0..reps {
        for q in std::hint::black_box(reqs) {
            sum = sum.wrapping_add(lookup(&q.method, &q.path));
        }
    }
    sum
}

fn lines(path: &str) -> Result<Vec<String>, String> {
    let data = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let text = String::from_utf8(data).map_err(|e| format!("{path}: not UTF-8: {e}"))?;
    Ok(text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_string())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect())
}

fn run(args: &[String], out: &mut impl Write) -> Result<(), String> {
    if args.len() != 2 {
        return Err("usage: nop ROUTES_FILE REQUESTS_FILE".into());
    }
    let routes = lines(&args[0])?;
    let mut reqs = Vec::new();
    let mut expected = Vec::new();
    for l in lines(&args[1])? {
        match (l.find(' '), l.rfind(' ')) {
            (Some(a), Some(b)) if b > a => {
                reqs.push(Request {
                    method: l[..a].into(),
                    path: l[a + 1..b].into(),
                });
                expected.push(l[b + 1..].parse::<i64>().unwrap_or(-1));
            }
            _ => return Err(format!("malformed request line {l:?}")),
        }
    }
    writeln!(out, "routebench-peer 1 nop-rust").map_err(|e| e.to_string())?;
    writeln!(out, "loaded {} 0 0", routes.len()).map_err(|e| e.to_string())?;
    for e in &expected {
        writeln!(out, "a {e}").map_err(|e| e.to_string())?;
    }
    writeln!(out, "fold {}", routebench_peer_loop(&reqs, 1)).map_err(|e| e.to_string())?;
    writeln!(out, "ready").map_err(|e| e.to_string())?;
    out.flush().map_err(|e| e.to_string())?;
    for cmd in std::io::stdin().lock().lines() {
        let cmd = cmd.map_err(|e| e.to_string())?;
        if cmd == "quit" {
            break;
        }
        let Some(reps) = cmd.strip_prefix("run ").and_then(|r| r.parse::<u64>().ok()) else {
            writeln!(out, "error unknown command {cmd:?}").map_err(|e| e.to_string())?;
            out.flush().map_err(|e| e.to_string())?;
            continue;
        };
        let start = Instant::now();
        let sum = routebench_peer_loop(&reqs, reps);
        let ns = start.elapsed().as_nanos();
        writeln!(out, "ok {ns} {sum}").map_err(|e| e.to_string())?;
        out.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    if let Err(e) = run(&args, &mut out) {
        let _ = writeln!(out, "error {}", e.replace('\n', " "));
        let _ = out.flush();
        std::process::exit(1);
    }
}
