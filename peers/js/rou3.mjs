// rou3.mjs — the routebench peer runner of rou3, the router of h3 and
// Nitro (docs/peer-protocol.md):  node rou3.mjs [plain] ROUTES_FILE REQUESTS_FILE
//
// Timed through rou3's own lookup, findRoute(router, method, path), with
// its params (as h3 calls it and rou3's own benchmarks do), alone, folding
// 1 for a route found, 0 for none.  A "*" route is rou3's any-method route
// (method "").  405: rou3 answers only "no route", so in the check pass a
// miss is looked up under the other methods (one findRoute each, not
// timed).  With "plain" there is no protocol: rou3's plain loop, in the
// style of its own benchmarks (findRoute on every request in a for loop),
// timed and printed by peer.mjs (scripts/peers_fair.sh).
//
// Translation: a param becomes :pN (N its segment index), a catch-all
// **:pN (one or more segments), a template's params :pN_K (rou3 splits a
// segment leftmost-shortest, as routebench does), a glob segment an
// unnamed regex capture ((...): '*' .*, '?' ., sets as they are: rou3's
// regex sees one segment),
// "**" rou3's "**"; rou3's syntax characters in static text are escaped
// with '\'.  Refused: what rou3 itself throws on (its message is the
// reason: a second catch-all in one route, ...).  rou3 treats a trailing
// '/' as absent and lets "**" take zero segments: its answers there are
// its own (the agreement count shows them).  Spans: rou3 hands back the
// path's own bytes; they are placed by the runner from the pattern (its
// glob captures are numbered, not named: those answers report no spans).
import { createRouter, addRoute, findRoute } from 'rou3'
import { main, METHODS, STATIC, PARAM, CATCHALL, GLOB, pieces } from './peer.mjs'

const esc = (t) => t.replace(/[:*?+(){}\\]/g, (c) => '\\' + c)

function globRegex (g) {
  let out = ''
  for (let i = 0; i < g.length; i++) {
    const c = g[i]
    if (c === '*') out += '.*' // the regex sees one segment: no '/' to exclude
    else if (c === '?') out += '.'
    else if (c === '[') {
      const end = g.indexOf(']', i + 1)
      let set = g.slice(i + 1, end)
      if (set[0] === '!') set = '^' + set.slice(1)
      out += '[' + set.replace(/[\\\]]/g, (x) => '\\' + x) + ']'
      i = end
    } else out += c.replace(/[.^$|+(){}\\]/g, (x) => '\\' + x)
  }
  return '(' + out + ')'
}

function translate (route) {
  return '/' + route.segs.map((s, i) => {
    if (s.kind === STATIC) return esc(s.text)
    if (s.kind === PARAM) return ':p' + i
    if (s.kind === CATCHALL) return '**:p' + i
    if (s.kind === GLOB) return s.text === '**' ? '**' : globRegex(s.text)
    let k = 0
    return pieces(s.text).map((p) => p.param ? ':p' + i + '_' + k++ : esc(p.text)).join('')
  }).join('/')
}

const router = createRouter()
const lookup = (method, path) => {
  const r = findRoute(router, method, path, { params: false })
  if (r !== undefined) return r.data
  for (let i = 0; i < METHODS.length; i++) {
    if (METHODS[i] !== method && findRoute(router, METHODS[i], path, { params: false }) !== undefined) return -2
  }
  return -1
}
main({
  name: 'rou3',
  add (route) {
    addRoute(router, route.method === '*' ? '' : route.method, translate(route), route.id)
  },
  build () {},
  lookup,
  // timed: findRoute alone, whether it found a route folded
  bare: (method, path) => findRoute(router, method, path) === undefined ? 0 : 1,
  // rou3's plain loop: findRoute on every request, the routes found counted
  plain (methods, paths, reps) {
    let sum = 0
    for (let r = 0; r < reps; r++) {
      for (let i = 0; i < paths.length; i++) if (findRoute(router, methods[i], paths[i]) !== undefined) sum++
    }
    return sum
  },
  answer (method, path) {
    const id = lookup(method, path)
    return { id, params: id >= 0 ? findRoute(router, method, path).params : undefined }
  }
}, process.argv.slice(2))
