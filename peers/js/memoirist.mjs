// memoirist.mjs — the routebench peer runner of memoirist, the router of
// Elysia (docs/peer-protocol.md):  node memoirist.mjs [plain] ROUTES_FILE REQUESTS_FILE
//
// Timed through memoirist's own lookup, find(method, path), alone, folding
// 1 for a route found, 0 for none.  A "*" route is added under every
// method (memoirist keeps one tree per method).  405: memoirist answers
// only "no route", so in the check pass a miss is looked up under the
// other methods (one find each, not timed).  With "plain" there is no
// protocol: memoirist's plain loop, in the style of its own benchmarks
// (find on every request in a for loop), timed and printed by peer.mjs
// (scripts/peers_fair.sh).
//
// Translation: a param becomes :pN (N its segment index), a catch-all
// memoirist's final '*'.  Refused: globs, templates (a memoirist param
// takes a whole segment), static text with ':', '*' or '?' (memoirist
// reads them as syntax).  Spans: memoirist hands back the path's own
// bytes; they are placed by the runner from the pattern (the catch-all's
// value is its '*' param).
import { Memoirist } from 'memoirist'
import { main, METHODS, STATIC, PARAM, CATCHALL, GLOB } from './peer.mjs'

function translate (route) {
  return '/' + route.segs.map((s, i) => {
    if (s.kind === STATIC) {
      if (/[:*?]/.test(s.text)) throw new Error("static text with ':', '*' or '?' (memoirist reads syntax)")
      return s.text
    }
    if (s.kind === PARAM) return ':p' + i
    if (s.kind === CATCHALL) return '*'
    if (s.kind === GLOB) throw new Error('globs are not supported by memoirist')
    throw new Error('templates are not supported (a memoirist param takes a whole segment)')
  }).join('/')
}

const router = new Memoirist()
const lookup = (method, path) => {
  const r = router.find(method, path)
  if (r !== null) return r.store
  for (let i = 0; i < METHODS.length; i++) {
    if (METHODS[i] !== method && router.find(METHODS[i], path) !== null) return -2
  }
  return -1
}
let catchAllAt = {}
main({
  name: 'memoirist',
  add (route) {
    const pat = translate(route)
    for (const m of route.method === '*' ? METHODS : [route.method]) router.add(m, pat, route.id)
    const last = route.segs.length - 1
    if (route.segs[last].kind === CATCHALL) catchAllAt = { ...catchAllAt, [route.id]: 'p' + last }
  },
  build () {},
  lookup,
  // timed: find alone, whether it found a route folded
  bare: (method, path) => router.find(method, path) === null ? 0 : 1,
  // memoirist's plain loop: find on every request, the routes found counted
  plain (methods, paths, reps) {
    let sum = 0
    for (let r = 0; r < reps; r++) {
      for (let i = 0; i < paths.length; i++) if (router.find(methods[i], paths[i]) !== null) sum++
    }
    return sum
  },
  answer (method, path) {
    const id = lookup(method, path)
    if (id < 0) return { id }
    const params = { ...router.find(method, path).params }
    if (catchAllAt[id]) params[catchAllAt[id]] = params['*']
    return { id, params }
  }
}, process.argv.slice(2))
