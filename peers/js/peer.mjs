// peer.mjs — the routebench peer runner protocol for JavaScript routers
// (docs/peer-protocol.md): reads the routes and requests files, parses
// routebench's pattern syntax into segments for a runner to translate, and
// speaks the protocol on stdin/stdout.  A runner supplies add (one route,
// or throws saying why it is refused), build, lookup, and optionally the
// params of an answer, from which the capture spans are placed.
import fs from 'node:fs'
import readline from 'node:readline'

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

// Segment kinds.
export const STATIC = 'static' // exact bytes
export const PARAM = 'param' // :name or {name}: one whole segment of 1+ bytes
export const CATCHALL = 'catchall' // *name or {*name}: 1+ bytes to the end
export const GLOB = 'glob' // *.png, img-??, [a-c]*, **
export const TEMPLATE = 'template' // {id}.json, {from}-{to}

function parseSeg (s) {
  if (s.length > 1 && s[0] === ':' && NAME.test(s.slice(1))) return { kind: PARAM, text: s }
  if (s.length > 2 && s[0] === '{' && s.endsWith('}') && NAME.test(s.slice(1, -1))) return { kind: PARAM, text: s }
  if ((s.length > 1 && s[0] === '*' && NAME.test(s.slice(1))) ||
      (s.startsWith('{*') && s.endsWith('}') && NAME.test(s.slice(2, -1)))) return { kind: CATCHALL, text: s }
  if (/[*?[]/.test(s)) return { kind: GLOB, text: s }
  if (s.includes('{')) return { kind: TEMPLATE, text: s }
  return { kind: STATIC, text: s }
}

// A template segment's pieces, in order: {param: false, text} literal
// bytes, {param: true, text: name}.
export function pieces (s) {
  const out = []
  for (const part of s.split(/(\{[^}]*\})/)) {
    if (part === '') continue
    if (part[0] === '{') out.push({ param: true, text: part.slice(1, -1) })
    else out.push({ param: false, text: part })
  }
  return out
}

function lines (path) {
  return fs.readFileSync(path, 'latin1').split('\n')
    .map((l) => l.replace(/\r$/, '')).filter((l) => l !== '' && l[0] !== '#')
}

// rank and literal bytes: routebench's priority key (docs/design.md)
function rank (s) {
  if (s.kind === STATIC) return 0
  if (s.kind === PARAM || s.kind === TEMPLATE) return 1
  if (s.kind === GLOB) return s.text === '**' ? 3 : 2
  return 4
}

function literalBytes (r) {
  let n = 0
  for (const s of r.segs) {
    if (s.kind === STATIC) n += s.text.length
    else if (s.kind === TEMPLATE) for (const p of pieces(s.text)) n += p.param ? 0 : p.text.length
    else if (s.kind === GLOB) n += s.text.replace(/[*?]/g, '').length
  }
  return n
}

// The routes' ids in routebench's priority order, the winner first: for a
// router that runs the first of the routes that match in the order it was
// given them.
export function priorityOrder (routes) {
  const cmp = (a, b) => {
    for (let i = 0; i < a.segs.length && i < b.segs.length; i++) {
      const d = rank(a.segs[i]) - rank(b.segs[i])
      if (d !== 0) return d
    }
    if (a.segs.length !== b.segs.length) return a.segs.length - b.segs.length
    if ((a.method === '*') !== (b.method === '*')) return a.method === '*' ? 1 : -1
    const d = literalBytes(b) - literalBytes(a)
    return d !== 0 ? d : a.id - b.id
  }
  return routes.slice().sort(cmp).map((r) => r.id)
}

// The spans of an answer from its params, when the router hands back the
// path's own bytes (no decoding): names follows the translation's naming,
// pN for segment N's param or catch-all, pN_K for a template's K-th param,
// gN for a glob segment.  null when a value is not where it should be.
export function spansOf (route, path, params) {
  const starts = [] // where each path segment starts
  for (let i = 1, k = 0; k <= route.segs.length; k++) {
    starts.push(i)
    const e = path.indexOf('/', i)
    if (e < 0) break
    i = e + 1
  }
  const out = []
  for (let i = 0; i < route.segs.length; i++) {
    const s = route.segs[i]
    if (s.kind === STATIC) continue
    if (starts[i] === undefined) return null
    if (s.kind === TEMPLATE) {
      let off = starts[i]
      let k = 0
      for (const p of pieces(s.text)) {
        if (!p.param) { off += p.text.length; continue }
        const v = params['p' + i + '_' + k++]
        if (v === undefined || path.substr(off, v.length) !== v) return null
        out.push(off, v.length)
        off += v.length
      }
      continue
    }
    if (s.text === '**') return null // not placed: how many segments it took is the router's
    const v = params[(s.kind === GLOB ? 'g' : 'p') + i]
    if (v === undefined || path.substr(starts[i], v.length) !== v) return null
    out.push(starts[i], v.length)
  }
  return out
}

// routebench_peer_loop: reps replays of every request, the sum of what
// fold returns (the runner's bare lookup, or id + 2).
function routebench_peer_loop (fold, reqs, reps) { // eslint-disable-line camelcase
  let sum = 0
  for (let r = 0; r < reps; r++) {
    for (let i = 0; i < reqs.length; i++) sum += fold(reqs[i][0], reqs[i][1])
  }
  return sum
}

// A flat copy of s: V8 keeps a slice of a long string as a reference into
// it, which every character read pays for; a server's strings are flat.
function flat (s) {
  return Buffer.from(s, 'latin1').toString('latin1')
}

// The plain loop timed (argv "plain"): one untimed run for the checksum,
// a warm-up that doubles the replays until a run lasts 50 ms, then five
// runs of about 200 ms; prints "plain NAME NS... checksum N", the ns per
// lookup of each run (scripts/peers_fair.sh).
function plainRuns (name, loop, reqs) {
  const methods = reqs.map((q) => q[0])
  const paths = reqs.map((q) => q[1])
  const one = loop(methods, paths, 1)
  let reps = 1
  for (;;) {
    const t = process.hrtime.bigint()
    loop(methods, paths, reps)
    const ns = Number(process.hrtime.bigint() - t)
    if (ns >= 50e6) { reps = Math.max(1, Math.floor(reps * 200e6 / ns)); break }
    reps *= 2
  }
  const out = ['plain ' + name]
  for (let k = 0; k < 5; k++) {
    const t = process.hrtime.bigint()
    const sum = loop(methods, paths, reps)
    const ns = Number(process.hrtime.bigint() - t)
    if (sum !== reps * one) throw new Error('checksum ' + sum + ', not ' + reps * one)
    out.push((ns / (reps * paths.length)).toFixed(1))
  }
  process.stdout.write(out.join(' ') + ' checksum ' + one + '\n')
}

// Run the protocol.  runner: {name, add(route), build(), lookup(method,
// path) -> id, answer(method, path) -> {id, params} (optional: spans),
// bare(method, path) -> a number (optional: the timed loop calls it instead
// of lookup, folding its result, said in the "fold" line: the router's own
// call alone), plain(methods, paths, reps) -> the sum of the router's plain
// loop (optional: argv "plain" before the files times it instead of the
// protocol; it folds as bare does), requests(reqs) (optional: given
// [method, path, expected] before the answers), ordered (add in priority
// order)}.  route: {id, method, pattern, segs}.
export function main (runner, argv) {
  const plain = argv.length === 3 && argv[0] === 'plain' && runner.plain
  if (plain) argv = argv.slice(1)
  if (argv.length !== 2) {
    process.stderr.write('usage: node RUNNER [ARG] [plain] ROUTES_FILE REQUESTS_FILE\n')
    process.exit(2)
  }
  const out = ['routebench-peer 1 ' + runner.name]
  const routes = lines(argv[0]).map((line, id) => {
    const sp = line.indexOf(' ')
    const pattern = line.slice(sp + 1)
    return { id, method: line.slice(0, sp), pattern, segs: pattern.slice(1).split('/').map(parseSeg) }
  })
  const reqs = lines(argv[1]).map((l) => [flat(l.slice(0, l.indexOf(' '))),
    flat(l.slice(l.indexOf(' ') + 1, l.lastIndexOf(' '))), Number(l.slice(l.lastIndexOf(' ') + 1))])
  if (runner.requests) runner.requests(reqs)
  const order = runner.ordered ? priorityOrder(routes) : routes.map((r) => r.id)
  const refused = new Map()
  const t0 = process.hrtime.bigint()
  for (const id of order) {
    try {
      runner.add(routes[id])
    } catch (e) {
      refused.set(id, String(e.message).replace(/\n/g, ' '))
    }
  }
  for (const [id, why] of runner.build() || []) refused.set(id, why)
  const build = process.hrtime.bigint() - t0
  if (plain) return plainRuns(runner.name, runner.plain, reqs)
  for (const id of [...refused.keys()].sort((a, b) => a - b)) out.push('refuse ' + id + ' ' + refused.get(id))
  out.push('loaded ' + (routes.length - refused.size) + ' ' + build + ' -1')
  for (const [m, p] of reqs) {
    if (!runner.answer) { out.push('a ' + runner.lookup(m, p)); continue }
    const a = runner.answer(m, p)
    const spans = a.id >= 0 ? spansOf(routes[a.id], p, a.params || {}) : []
    out.push('a ' + a.id + (spans ? ' =' + spans.map((v, i) => (i % 2 ? '+' : ' ') + v).join('') : ''))
  }
  let fold = (m, p) => runner.lookup(m, p) + 2
  if (runner.bare) {
    fold = runner.bare
    let sum = 0
    for (const [m, p] of reqs) sum += fold(m, p)
    out.push('fold ' + sum)
  }
  out.push('ready')
  process.stdout.write(out.join('\n') + '\n')
  const rl = readline.createInterface({ input: process.stdin })
  rl.on('line', (cmd) => {
    if (cmd === 'quit') { rl.close(); return }
    const m = /^run (\d+)$/.exec(cmd)
    if (!m) { process.stdout.write('error unknown command\n'); return }
    const start = process.hrtime.bigint()
    const sum = routebench_peer_loop(fold, reqs, Number(m[1]))
    const ns = process.hrtime.bigint() - start
    process.stdout.write('ok ' + ns + ' ' + sum + '\n')
  })
}
