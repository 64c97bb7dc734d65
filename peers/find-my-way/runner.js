'use strict'
// runner.js — the routebench peer runner of Node's find-my-way
// (docs/peer-protocol.md):  node runner.js [find|plain] ROUTES_FILE REQUESTS_FILE
//
// With "plain" there is no protocol: find-my-way's plain loop, in the
// style of its own benchmarks (find in a for loop over the requests, hits
// counted), timed after a warm-up, five runs of about 200 ms, printed as
// "plain find-my-way NS... checksum N" (scripts/peers_fair.sh).
//
// Timed through find-my-way's own lookup, find(method, path), alone, in a
// loop that folds whether it found a route, as a plain benchmark loop of
// find-my-way does.  find answers only "no route": to give routebench's
// answer (405 when the path is known under another method) the runner
// finds the path under each other method after a miss, in the check pass
// that answers every request (not timed).  With "find" the runner (named
// find-my-way-find) answers 404 where the answer is 405 (the agreement
// count shows how many); both time the same loop.  The request strings
// are flattened (copied out of the file's text), as a server's are: V8
// keeps a slice of a long string as a reference into it, which every
// character read pays for.
//
// Translation: a param becomes :pN (N its segment index), a catch-all
// find-my-way's '*', a template segment ("{from}-{to}", "{id}.json")
// find-my-way's multi-parametric form (":pN_0-:pN_1", ":pN_0.json"); ':' in
// static text is doubled ("::", find-my-way's escape).  Refused: globs,
// static text with '*', two params with nothing between them, text after a
// param starting with neither '-' nor '.' (find-my-way would read it as
// the param's name: "{id}_x"), and
// whatever find-my-way itself rejects (its exception's text is the
// reason).  A "*" route is registered for every method.  Spans are not reported: find-my-way
// hands params back decoded, not as positions in the path.
const fs = require('fs')
const readline = require('readline')
const FindMyWay = require('find-my-way')

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

// A flat copy of s (not a slice of the file's text).
function flat (s) {
  return Buffer.from(s, 'latin1').toString('latin1')
}

function lines (path) {
  return fs.readFileSync(path, 'latin1').split('\n')
    .map((l) => l.replace(/\r$/, '')).filter((l) => l !== '' && l[0] !== '#')
}

function escapeStatic (text) {
  if (/[*]/.test(text)) throw new Error("static text with '*' (find-my-way reads a wildcard)")
  return text.replace(/:/g, '::')
}

// One segment of ours -> find-my-way's text.
function segment (s, i, last) {
  if (s[0] === ':' && NAME.test(s.slice(1))) return ':p' + i
  if (s.length > 2 && s[0] === '{' && s.endsWith('}') && NAME.test(s.slice(1, -1))) return ':p' + i
  const catchAll = (s[0] === '*' && NAME.test(s.slice(1))) ||
    (s.startsWith('{*') && s.endsWith('}') && NAME.test(s.slice(2, -1)))
  if (catchAll) {
    if (!last) throw new Error('a catch-all must be the last segment')
    return '*'
  }
  if (/[*?[]/.test(s)) throw new Error('globs are not supported by find-my-way')
  if (s.includes('{')) { // a template: {a}-{b}, {id}.json
    let out = ''
    let k = 0
    let prevParam = false
    for (const part of s.split(/(\{[^}]*\})/)) {
      if (part === '') continue
      if (part[0] === '{') {
        if (!NAME.test(part.slice(1, -1))) throw new Error('a malformed template ' + s)
        if (prevParam) throw new Error('two params with nothing between them')
        out += ':p' + i + '_' + k++
        prevParam = true
      } else {
        // find-my-way ends a param's name at '-', '.', '(' or '/' only: other
        // text after a param would be read as part of its name
        if (prevParam && part[0] !== '-' && part[0] !== '.') {
          throw new Error("text after a param that starts with neither '-' nor '.' " +
            "(find-my-way reads it as the param's name)")
        }
        out += escapeStatic(part)
        prevParam = false
      }
    }
    return out
  }
  return escapeStatic(s)
}

function translate (pattern) {
  const segs = pattern.slice(1).split('/')
  return '/' + segs.map((s, i) => segment(s, i, i === segs.length - 1)).join('/')
}

function main () {
  const argv = process.argv.slice(2)
  const findOnly = argv.length === 3 && argv[0] === 'find'
  const plain = argv.length === 3 && argv[0] === 'plain'
  if (findOnly || plain) argv.shift()
  if (argv.length !== 2) {
    process.stderr.write('usage: node runner.js [find] ROUTES_FILE REQUESTS_FILE\n')
    process.exit(2)
  }
  const out = []
  const routes = lines(argv[0])
  const reqs = lines(argv[1]).map((l) => {
    const a = l.indexOf(' ')
    const b = l.lastIndexOf(' ')
    return [flat(l.slice(0, a)), flat(l.slice(a + 1, b))]
  })
  out.push('routebench-peer 1 ' + (findOnly ? 'find-my-way-find' : 'find-my-way'))
  const router = FindMyWay({ caseSensitive: true, ignoreTrailingSlash: false, ignoreDuplicateSlashes: false })
  const t0 = process.hrtime.bigint()
  let taken = 0
  routes.forEach((line, id) => {
    const sp = line.indexOf(' ')
    const method = line.slice(0, sp)
    try {
      const path = translate(line.slice(sp + 1))
      router.on(method === '*' ? METHODS : method, path, () => {}, { id })
      taken++
    } catch (e) {
      out.push('refuse ' + id + ' ' + String(e.message).replace(/\n/g, ' '))
    }
  })
  const build = process.hrtime.bigint() - t0
  if (plain) return plainRuns(router, reqs)
  out.push('loaded ' + taken + ' ' + build + ' -1')
  const lookup = (method, path) => {
    const r = router.find(method, path)
    if (r !== null) return r.store.id
    if (findOnly) return -1
    for (const m of METHODS) {
      if (m !== method && router.find(m, path) !== null) return -2
    }
    return -1
  }
  for (const [m, p] of reqs) out.push('a ' + lookup(m, p))
  const bare = (method, path) => router.find(method, path) === null ? 0 : 1
  let fold = 0
  for (const [m, p] of reqs) fold += bare(m, p)
  out.push('fold ' + fold)
  out.push('ready')
  process.stdout.write(out.join('\n') + '\n')
  const rl = readline.createInterface({ input: process.stdin })
  rl.on('line', (cmd) => {
    if (cmd === 'quit') { rl.close(); return }
    const m = /^run (\d+)$/.exec(cmd)
    if (!m) { process.stdout.write('error unknown command\n'); return }
    const reps = Number(m[1])
    let sum = 0
    const start = process.hrtime.bigint()
    for (let r = 0; r < reps; r++) {
      for (let i = 0; i < reqs.length; i++) sum += bare(reqs[i][0], reqs[i][1])
    }
    const ns = process.hrtime.bigint() - start
    process.stdout.write('ok ' + ns + ' ' + sum + '\n')
  })
}

// find-my-way's plain loop: find on every request, the hits counted.
function plainLoop (router, methods, paths, reps) {
  let sum = 0
  for (let r = 0; r < reps; r++) {
    for (let i = 0; i < paths.length; i++) {
      if (router.find(methods[i], paths[i]) !== null) sum++
    }
  }
  return sum
}

function plainRuns (router, reqs) {
  const methods = reqs.map((q) => q[0])
  const paths = reqs.map((q) => q[1])
  const one = plainLoop(router, methods, paths, 1)
  let reps = 1
  for (;;) { // warm-up and calibration: until a run lasts 50 ms
    const t = process.hrtime.bigint()
    plainLoop(router, methods, paths, reps)
    const ns = Number(process.hrtime.bigint() - t)
    if (ns >= 50e6) { reps = Math.max(1, Math.floor(reps * 200e6 / ns)); break }
    reps *= 2
  }
  const out = ['plain find-my-way']
  for (let k = 0; k < 5; k++) {
    const t = process.hrtime.bigint()
    const sum = plainLoop(router, methods, paths, reps)
    const ns = Number(process.hrtime.bigint() - t)
    if (sum !== reps * one) throw new Error('checksum ' + sum + ', not ' + reps * one)
    out.push((ns / (reps * paths.length)).toFixed(1))
  }
  process.stdout.write(out.join(' ') + ' checksum ' + one + '\n')
}

main()
