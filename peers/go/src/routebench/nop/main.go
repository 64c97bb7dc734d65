// nop is the routebench peer runner of no router at all, in Go
// (docs/peer-protocol.md): the same protocol, loop and fold as every Go
// runner, with a lookup that returns a constant.  Its figure is the cost
// of the Go runner's loop itself (a call through a func value, the fold,
// the request slice), the floor under every Go peer's figure.  It takes
// every route; its answers, checked like any runner's, are the requests
// file's EXPECTED column, so it agrees wherever EXPECTED is linear's.
package main

import (
	"strconv"

	"routebench/peer"
)

func main() {
	expected := map[string]int{}
	add := func(id int, r peer.Route) error { return nil }
	lookup := func(method, path string, spans []int) (int, []int) {
		return expected[method+" "+path], nil
	}
	bare := func(method, path string) uint64 { return 1 }
	peer.Main(peer.Runner{Name: "nop-go", Add: add, Build: func() {}, Lookup: lookup, Bare: bare,
		Requests: func(reqs []peer.Request) {
			for _, q := range reqs {
				id, err := strconv.Atoi(q.Expected)
				if err != nil {
					id = -1
				}
				expected[q.Method+" "+q.Path] = id
			}
		}})
}
