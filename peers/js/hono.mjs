// hono.mjs — the routebench peer runner of hono's routers
// (docs/peer-protocol.md):
//
//     node hono.mjs [smart|regexp|trie] [plain] ROUTES_FILE REQUESTS_FILE
//
// smart (the default, as in hono itself): SmartRouter over RegExpRouter
// and TrieRouter, which keeps the first of them that accepts the table;
// regexp: RegExpRouter (one compiled regular expression for the whole
// table); trie: TrieRouter.  Timed through the router's own match(method,
// path), the call hono's dispatcher makes, alone, folding the number of
// routes it returned.  match returns every route that matches, in the
// order they were added (hono runs them in that order and the first to
// answer wins), so the runner adds routes in routebench's priority order
// and, in the check pass, takes the first; a "*" route is hono's "ALL".
// 405: hono answers 404 for a path known under other methods only, so in
// the check pass a miss is matched under the other methods (one match
// each, not timed).  With "plain" there is no protocol: hono's plain loop,
// in the style of hono's own router benchmarks (match on every request in
// a for loop), timed and printed by peer.mjs (scripts/peers_fair.sh).  The
// routers build at their first match: the runner matches once while
// building, so that the build time holds it; a table RegExpRouter cannot
// compile (UnsupportedPathError) is refused at the first route whose
// addition makes it fail.
//
// Translation: a param becomes :pN (N its segment index; hono's [^/]+), a
// catch-all :pN{.+}, a glob segment a param with a regular expression
// (:gN{...}: '*' [^/]*, '?' [^/], sets as they are).  Refused: templates
// (a hono param takes a whole segment; a regular expression can constrain
// it, not split it), "**", static text with ':', '{', '}' or '*' (hono
// reads them as syntax), and whatever hono itself throws on.  Spans: hono
// hands back the path's own bytes (no decoding at this level); they are
// placed by the runner from the pattern.
import { RegExpRouter } from 'hono/router/reg-exp-router'
import { TrieRouter } from 'hono/router/trie-router'
import { SmartRouter } from 'hono/router/smart-router'
import { main, METHODS, STATIC, PARAM, CATCHALL, GLOB } from './peer.mjs'

const kinds = {
  smart: () => new SmartRouter({ routers: [new RegExpRouter(), new TrieRouter()] }),
  regexp: () => new RegExpRouter(),
  trie: () => new TrieRouter()
}
const argv = process.argv.slice(2)
const kind = argv.length >= 3 && argv[0] !== 'plain' ? argv.shift() : 'smart'
if (!kinds[kind]) {
  process.stderr.write('usage: node hono.mjs [smart|regexp|trie] [plain] ROUTES_FILE REQUESTS_FILE\n')
  process.exit(2)
}

function globRegex (g) {
  let out = ''
  for (let i = 0; i < g.length; i++) {
    const c = g[i]
    if (c === '*') out += '[^/]*'
    else if (c === '?') out += '[^/]'
    else if (c === '[') {
      const end = g.indexOf(']', i + 1)
      let set = g.slice(i + 1, end)
      if (set[0] === '!') set = '^/' + set.slice(1)
      if (/[{}\\\]]/.test(set)) throw new Error("a glob set with '{', '}', '\\' or ']'")
      out += '[' + set + ']'
      i = end
    } else if ('{}'.includes(c)) throw new Error("a glob with '{' or '}' (hono reads a regex's end)")
    else out += c.replace(/[.^$|+()\\]/g, (x) => '\\' + x)
  }
  return out
}

function translate (route) {
  return '/' + route.segs.map((s, i) => {
    if (s.kind === STATIC) {
      if (/[:{}*]/.test(s.text)) throw new Error("static text with ':', '{', '}' or '*' (hono reads syntax)")
      return s.text
    }
    if (s.kind === PARAM) return ':p' + i
    if (s.kind === CATCHALL) return ':p' + i + '{.+}'
    if (s.kind === GLOB) {
      if (s.text === '**') throw new Error("'**' (zero or more segments) has no hono form")
      return ':g' + i + '{' + globRegex(s.text) + '}'
    }
    throw new Error('templates are not supported (a hono param takes a whole segment)')
  }).join('/')
}

// The first route's id of a match result, -1 when there is none.
function first (res) {
  return res[0].length ? res[0][0][0] : -1
}

// The params of the first route of a match result.
function params (res) {
  const [h, p] = res[0][0]
  if (!res[1]) return p
  const out = {}
  for (const k of Object.keys(p)) out[k] = res[1][p[k]]
  return out
}

let router = kinds[kind]()
const added = []
const lookup = (method, path) => {
  const id = first(router.match(method, path))
  if (id >= 0) return id
  for (let i = 0; i < METHODS.length; i++) {
    if (METHODS[i] !== method && first(router.match(METHODS[i], path)) >= 0) return -2
  }
  return -1
}
const name = { smart: 'hono', regexp: 'hono-regexp', trie: 'hono-trie' }[kind]
main({
  name,
  ordered: true,
  add (route) {
    const pat = translate(route)
    try {
      router.add(route.method === '*' ? 'ALL' : route.method, pat, route.id)
    } catch (e) {
      const why = e.constructor.name === 'UnsupportedPathError'
        ? 'UnsupportedPathError (RegExpRouter cannot order it against a route added before; ' +
          "hono's SmartRouter then uses TrieRouter)"
        : e.constructor.name + ': ' + e.message
      throw new Error(name + ' refuses ' + pat + ': ' + why)
    }
    added.push([route.method === '*' ? 'ALL' : route.method, pat, route.id])
  },
  build () {
    const refused = []
    for (;;) {
      try {
        router.match('GET', '/')
        return refused
      } catch (e) {
        // the first route whose addition makes the table fail to compile
        let k = 0
        for (; k < added.length; k++) {
          const r = kinds[kind]()
          for (let j = 0; j <= k; j++) r.add(...added[j])
          try { r.match('GET', '/') } catch { break }
        }
        if (k === added.length) throw e
        refused.push([added[k][2], name + ' cannot compile the table with this route: ' + (e.message || e.name)])
        added.splice(k, 1)
        router = kinds[kind]()
        for (const a of added) router.add(...a)
      }
    }
  },
  lookup: (m, p) => lookup(m, p),
  // timed: match alone, the routes it returned counted
  bare: (m, p) => router.match(m, p)[0].length,
  // hono's plain loop: match on every request, the routes counted
  plain (methods, paths, reps) {
    let sum = 0
    for (let r = 0; r < reps; r++) {
      for (let i = 0; i < paths.length; i++) sum += router.match(methods[i], paths[i])[0].length
    }
    return sum
  },
  answer (method, path) {
    const id = lookup(method, path)
    return { id, params: id >= 0 ? params(router.match(method, path)) : undefined }
  }
}, argv)
