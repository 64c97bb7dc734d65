//! The routebench peer runner of Rust's matchit, the router of axum
//! (docs/peer-protocol.md):
//!
//!     matchit [per-method] [plain] ROUTES_FILE REQUESTS_FILE
//!
//! With `plain` there is no protocol: matchit's plain loop in the style of
//! its own benchmarks (`Router::at` on every path of axum's tree, or of the
//! request method's tree with `per-method`, the hits and their params
//! counted), timed after a warm-up, five runs of about 200 ms, printed as
//! `plain NAME NS... checksum N` (scripts/peers_fair.sh).
//!
//! The answers (route, 405, spans) are given in a check pass; the timed
//! loop folds what `at` returned (1 + the params' count for a hit, 0 for
//! a miss), as the plain loop does, and says so in its `fold` line.
//!
//! Two ways to use matchit, both measured:
//!
//! - **axum's** (the default): one matchit tree of paths, whose value is
//!   the path's table of methods (axum's `MethodRouter`: a route per
//!   method and one for any method).  One `Router::at` per lookup; the
//!   method table then gives the route, or 405 when the path is there
//!   under other methods only (as axum answers), or 404 when `at` fails.
//!   This is how matchit is used by most of its users (through axum).  The
//!   timed loop reads the method table too (its route is computed, not
//!   folded).
//! - **per-method**: one matchit tree per method (httprouter's layout; a
//!   `*` route is inserted into every tree).  One `at` in the request's
//!   method's tree, timed alone; in the check pass a miss looks the path up
//!   in the other trees to tell 405 from 404 (matchit alone says only
//!   "no").
//!
//! Translation: a param becomes `{pN}` (N its segment index), a catch-all
//! `{*rest}`, a template with one param (`img-{id}.png`, `{sid}.json`)
//! matchit's own form with that param renamed (`img-{pN}.png`); `{` and
//! `}` in static text are doubled (matchit's escape).  Refused: globs,
//! templates with two or more params (matchit allows one per segment), and
//! whatever matchit itself rejects (its error is the reason).  Spans:
//! matchit's params are slices of the path.  Memory: the bytes the
//! router's allocations hold after building (a counting allocator).
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Instant;

/// The system allocator, counting the bytes it holds.
struct Counting;
static HELD: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        HELD.fetch_add(l.size() as isize, Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        HELD.fetch_sub(l.size() as isize, Ordering::Relaxed);
        System.dealloc(p, l)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const METHODS: [&str; 9] = [
    "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
];
const NONE: i32 = -1;

fn method_index(m: &str) -> Option<usize> {
    METHODS.iter().position(|x| *x == m)
}

fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter()
            .enumerate()
            .all(|(i, &c)| c == b'_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit()))
}

fn escape(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

/// One segment of ours (index i) in matchit's syntax.
fn segment(s: &str, i: usize, last: bool) -> Result<String, String> {
    let param = (s.len() > 1 && s.starts_with(':') && is_name(&s[1..]))
        || (s.len() > 2 && s.starts_with('{') && s.ends_with('}') && is_name(&s[1..s.len() - 1]));
    if param {
        return Ok(format!("{{p{i}}}"));
    }
    let catch_all = (s.len() > 1 && s.starts_with('*') && is_name(&s[1..]))
        || (s.len() > 3 && s.starts_with("{*") && s.ends_with('}') && is_name(&s[2..s.len() - 1]));
    if catch_all {
        if !last {
            return Err("a catch-all must be the last segment".into());
        }
        return Ok("{*rest}".into());
    }
    if s.contains(['*', '?', '[']) {
        return Err("globs are not supported by matchit".into());
    }
    if let Some(open) = s.find('{') {
        let close = s[open..].find('}').map(|c| open + c);
        let Some(close) = close else {
            return Err("a malformed template".into());
        };
        if s[close + 1..].contains('{') {
            return Err("a template with two or more params (matchit allows one a segment)".into());
        }
        if !is_name(&s[open + 1..close]) {
            return Err("a malformed template".into());
        }
        return Ok(format!(
            "{}{{p{i}}}{}",
            escape(&s[..open]),
            escape(&s[close + 1..])
        ));
    }
    Ok(escape(s))
}

fn translate(pattern: &str) -> Result<String, String> {
    let segs: Vec<&str> = pattern[1..].split('/').collect();
    let mut out = String::new();
    for (i, s) in segs.iter().enumerate() {
        out.push('/');
        out.push_str(&segment(s, i, i + 1 == segs.len())?);
    }
    Ok(out)
}

/// A path's routes by method, and the one for any method.
pub struct MethodTable {
    by_method: [i32; 9],
    any: i32,
}

pub enum Runner {
    /// axum's layout: one tree of paths, a method table per path.
    Axum {
        router: matchit::Router<usize>,
        tables: Vec<MethodTable>,
    },
    /// One tree per method.
    PerMethod { routers: Vec<matchit::Router<i32>> },
}

/// The spans of m's params into spans (offset, length pairs).
fn spans_of(path: &str, params: &matchit::Params, spans: &mut Vec<usize>) {
    let base = path.as_ptr() as usize;
    for (_, v) in params.iter() {
        spans.push(v.as_ptr() as usize - base);
        spans.push(v.len());
    }
}

impl Runner {
    /// The answer to (method, path): a route id, -1 (404) or -2 (405);
    /// the capture spans into spans when it is Some.
    #[inline(always)]
    fn lookup(&self, method: &str, path: &str, spans: Option<&mut Vec<usize>>) -> i32 {
        let mi = method_index(method);
        match self {
            Runner::Axum { router, tables } => match router.at(path) {
                Ok(m) => {
                    let t = &tables[*m.value];
                    let id = match mi {
                        Some(i) if t.by_method[i] != NONE => t.by_method[i],
                        _ => t.any,
                    };
                    if id == NONE {
                        return -2;
                    }
                    if let Some(s) = spans {
                        spans_of(path, &m.params, s);
                    }
                    id
                }
                Err(_) => -1,
            },
            Runner::PerMethod { routers } => {
                if let Some(i) = mi {
                    if let Ok(m) = routers[i].at(path) {
                        if let Some(s) = spans {
                            spans_of(path, &m.params, s);
                        }
                        return *m.value;
                    }
                }
                for (k, r) in routers.iter().enumerate() {
                    if Some(k) != mi && r.at(path).is_ok() {
                        return -2;
                    }
                }
                -1
            }
        }
    }
}

impl Runner {
    /// The timed call: `at` (axum's layout: then the method table, as
    /// axum reads it), folded as the plain loop folds it: 1 + the params'
    /// count when `at` finds the path, 0 when it does not.
    #[inline(always)]
    fn bare(&self, method: &str, path: &str) -> u64 {
        match self {
            Runner::Axum { router, tables } => match router.at(path) {
                Ok(m) => {
                    let t = &tables[*m.value];
                    let id = match method_index(method) {
                        Some(i) if t.by_method[i] != NONE => t.by_method[i],
                        _ => t.any,
                    };
                    std::hint::black_box(id);
                    1 + m.params.len() as u64
                }
                Err(_) => 0,
            },
            Runner::PerMethod { routers } => match method_index(method) {
                Some(i) => match routers[i].at(path) {
                    Ok(m) => 1 + m.params.len() as u64,
                    Err(_) => 0,
                },
                None => 0,
            },
        }
    }
}

pub struct Request {
    method: String,
    path: String,
}

/// The timed loop: reps replays of every request; the sum of what the
/// bare lookup folds.  Its name is the protocol's: under `--metric
/// instructions` routebench counts the instructions executed inside it,
/// and only those.
#[no_mangle]
#[inline(never)]
pub fn routebench_peer_loop(runner: &Runner, reqs: &[Request], reps: u64) -> u64 {
    let mut sum: u64 = 0;
    for _ in 0..reps {
        for q in std::hint::black_box(reqs) {
            sum = sum.wrapping_add(runner.bare(&q.method, &q.path));
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

/// Insert (method, pattern) as route id; Err: why it is refused.
fn add(
    runner: &mut Runner,
    paths: &mut HashMap<String, usize>,
    id: i32,
    method: &str,
    pattern: &str,
) -> Result<(), String> {
    let pat = translate(pattern)?;
    let mi = match method {
        "*" => None,
        m => Some(method_index(m).ok_or_else(|| format!("unknown method {m}"))?),
    };
    match runner {
        Runner::Axum { router, tables } => {
            let k = match paths.get(&pat) {
                Some(&k) => k,
                None => {
                    router
                        .insert(pat.clone(), tables.len())
                        .map_err(|e| format!("matchit refuses {pat}: {e}"))?;
                    tables.push(MethodTable {
                        by_method: [NONE; 9],
                        any: NONE,
                    });
                    paths.insert(pat.clone(), tables.len() - 1);
                    tables.len() - 1
                }
            };
            let slot = match mi {
                Some(i) => &mut tables[k].by_method[i],
                None => &mut tables[k].any,
            };
            if *slot != NONE {
                return Err(format!("a second route for {method} {pat}"));
            }
            *slot = id;
        }
        Runner::PerMethod { routers } => {
            // a specific method's route wins over a "*" route of the same
            // path, in that method's tree: insert() keeps the first, and
            // the specific routes are added first (see main)
            let which: Vec<usize> = match mi {
                Some(i) => vec![i],
                None => (0..METHODS.len()).collect(),
            };
            let mut taken = false;
            for i in which {
                let key = format!("{i} {pat}");
                if paths.contains_key(&key) {
                    continue;
                }
                routers[i]
                    .insert(pat.clone(), id)
                    .map_err(|e| format!("matchit refuses {pat}: {e}"))?;
                paths.insert(key, 0);
                taken = true;
            }
            if !taken {
                return Err(format!("a second route for {method} {pat}"));
            }
        }
    }
    Ok(())
}

fn run(args: &[String], out: &mut impl Write) -> Result<(), String> {
    let (per_method, plain, files) = match args {
        [m, p, r, q] if m == "per-method" && p == "plain" => (true, true, (r, q)),
        [m, r, q] if m == "per-method" => (true, false, (r, q)),
        [m, r, q] if m == "plain" => (false, true, (r, q)),
        [r, q] => (false, false, (r, q)),
        _ => {
            eprintln!("usage: matchit [per-method] [plain] ROUTES_FILE REQUESTS_FILE");
            std::process::exit(2);
        }
    };
    let routes = lines(files.0)?;
    let mut reqs = Vec::new();
    for l in lines(files.1)? {
        let (a, b) = (l.find(' '), l.rfind(' '));
        match (a, b) {
            (Some(a), Some(b)) if b > a => reqs.push(Request {
                method: l[..a].into(),
                path: l[a + 1..b].into(),
            }),
            _ => return Err(format!("malformed request line {l:?}")),
        }
    }
    let name = if per_method {
        "matchit-per-method"
    } else {
        "matchit"
    };
    if !plain {
        writeln!(out, "routebench-peer 1 {name}").map_err(|e| e.to_string())?;
    }
    let held0 = HELD.load(Ordering::Relaxed);
    let t0 = Instant::now();
    let mut runner = if per_method {
        Runner::PerMethod {
            routers: (0..METHODS.len()).map(|_| matchit::Router::new()).collect(),
        }
    } else {
        Runner::Axum {
            router: matchit::Router::new(),
            tables: Vec::new(),
        }
    };
    let mut paths = HashMap::new();
    let mut refusals: Vec<(usize, String)> = Vec::new();
    let mut taken = 0;
    // specific methods first, then "*" (per-method: the specific route
    // keeps its method's tree)
    for any in [false, true] {
        for (id, line) in routes.iter().enumerate() {
            let Some(sp) = line.find(' ') else {
                return Err(format!("malformed route line {line:?}"));
            };
            let (method, pattern) = (&line[..sp], &line[sp + 1..]);
            if (method == "*") != any {
                continue;
            }
            if !pattern.starts_with('/') {
                return Err(format!("malformed route line {line:?}"));
            }
            match add(&mut runner, &mut paths, id as i32, method, pattern) {
                Ok(()) => taken += 1,
                Err(why) => refusals.push((id, why)),
            }
        }
    }
    let build_ns = t0.elapsed().as_nanos();
    drop(paths);
    if plain {
        match &runner {
            Runner::Axum { router, .. } => plain_runs(name, &reqs, |r, n| plain_loop(router, r, n)),
            Runner::PerMethod { routers } => {
                plain_runs(name, &reqs, |r, n| plain_loop_per_method(routers, r, n))
            }
        }
        return Ok(());
    }
    let memory = HELD.load(Ordering::Relaxed) - held0;
    refusals.sort();
    for (id, why) in &refusals {
        writeln!(out, "refuse {id} {}", why.replace('\n', " ")).map_err(|e| e.to_string())?;
    }
    writeln!(out, "loaded {taken} {build_ns} {memory}").map_err(|e| e.to_string())?;
    let mut spans = Vec::with_capacity(64);
    for q in &reqs {
        spans.clear();
        let id = runner.lookup(&q.method, &q.path, Some(&mut spans));
        write!(out, "a {id} =").map_err(|e| e.to_string())?;
        for p in spans.chunks(2) {
            write!(out, " {}+{}", p[0], p[1]).map_err(|e| e.to_string())?;
        }
        writeln!(out).map_err(|e| e.to_string())?;
    }
    let fold = routebench_peer_loop(&runner, &reqs, 1);
    writeln!(out, "fold {fold}").map_err(|e| e.to_string())?;
    writeln!(out, "ready").map_err(|e| e.to_string())?;
    out.flush().map_err(|e| e.to_string())?;
    for cmd in std::io::stdin().lock().lines() {
        let cmd = cmd.map_err(|e| e.to_string())?;
        if cmd == "quit" {
            break;
        }
        let reps: Option<u64> = cmd.strip_prefix("run ").and_then(|r| r.parse().ok());
        let Some(reps) = reps else {
            writeln!(out, "error unknown command {cmd:?}").map_err(|e| e.to_string())?;
            out.flush().map_err(|e| e.to_string())?;
            continue;
        };
        let start = Instant::now();
        let sum = routebench_peer_loop(&runner, &reqs, reps);
        let ns = start.elapsed().as_nanos();
        writeln!(out, "ok {ns} {sum}").map_err(|e| e.to_string())?;
        out.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// matchit's plain loop: `at` on every path, the hits and their params
/// counted.
#[inline(never)]
fn plain_loop(router: &matchit::Router<usize>, reqs: &[Request], reps: u64) -> u64 {
    let mut sum: u64 = 0;
    for _ in 0..reps {
        for q in std::hint::black_box(reqs) {
            if let Ok(m) = router.at(&q.path) {
                sum += 1 + m.params.len() as u64;
            }
        }
    }
    sum
}

/// matchit's plain loop, one tree per method: `at` in the request
/// method's tree, the hits and their params counted.
#[inline(never)]
fn plain_loop_per_method(routers: &[matchit::Router<i32>], reqs: &[Request], reps: u64) -> u64 {
    let mut sum: u64 = 0;
    for _ in 0..reps {
        for q in std::hint::black_box(reqs) {
            if let Some(i) = method_index(&q.method) {
                if let Ok(m) = routers[i].at(&q.path) {
                    sum += 1 + m.params.len() as u64;
                }
            }
        }
    }
    sum
}

/// The plain loop timed: one untimed run for the checksum, reps sized for
/// about 200 ms, five runs; prints `plain NAME NS... checksum N`.
fn plain_runs(name: &str, reqs: &[Request], plain_loop: impl Fn(&[Request], u64) -> u64) {
    let one = plain_loop(reqs, 1);
    let mut reps: u64 = 1;
    loop {
        let t = Instant::now();
        plain_loop(reqs, reps);
        let ns = t.elapsed().as_nanos() as f64;
        if ns >= 50e6 {
            reps = ((reps as f64 * 200e6 / ns) as u64).max(1);
            break;
        }
        reps *= 2;
    }
    print!("plain {name}");
    for _ in 0..5 {
        let t = Instant::now();
        let sum = plain_loop(reqs, reps);
        let ns = t.elapsed().as_nanos() as f64;
        assert_eq!(sum, reps * one, "checksum");
        print!(" {:.1}", ns / (reps as f64 * reqs.len() as f64));
    }
    println!(" checksum {one}");
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
