package main

import "testing"

func TestMarkdownRow(t *testing.T) {
	l := line{
		Row: Row{Workload: "LeNet-5 step", Unit: "ms", Date: "2026-11-27", Peer: "PyTorch", Target: 2, Issue: "#28",
			Command: "bench/peer/train.sh 3 'a|b'",
			Ours:    Pick{File: "2026-11-27d/train.txt"}, Theirs: Pick{File: "2026-11-27d/train.txt"}},
		ours:   figure{v: 7.857},
		theirs: figure{v: 10.73, text: "10.73"},
	}
	want := "| LeNet-5 step | 7.857 ms | 10.73 ms (PyTorch) | 1.37× | ≥ 2× (#28): not met | 2026-11-27 | " +
		"[2026-11-27d/train.txt](results/2026-11-27d/train.txt) | `bench/peer/train.sh 3 'a\\|b'` |"
	if got := l.markdown("results"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestRatioDirection: a rate and a time each give a ratio above 1 when this
// engine is the faster, and a target is met at or above its ratio.
func TestRatioDirection(t *testing.T) {
	rate := line{Row: Row{Unit: "GFLOP/s", Target: 1.1}, ours: figure{v: 220}, theirs: figure{v: 200}}
	time := line{Row: Row{Unit: "ms", Target: 0.9}, ours: figure{v: 20}, theirs: figure{v: 18}}
	if got := formatRatio(rate.ratio()); got != "1.10×" {
		t.Errorf("rate: %s", got)
	}
	if got := rate.target(); got != "≥ 1.1×: met" {
		t.Errorf("rate target: %s", got)
	}
	if got := formatRatio(time.ratio()); got != "0.90×" {
		t.Errorf("time: %s", got)
	}
	if got := time.target(); got != "≥ 0.9×: met" {
		t.Errorf("time target: %s", got)
	}
	if got := formatRatio(30.24); got != "30.2×" {
		t.Errorf("large ratio: %s", got)
	}
}

func TestTwoFilesLinked(t *testing.T) {
	l := line{Row: Row{Unit: "ms", Ours: Pick{File: "d/go.txt"}, Theirs: Pick{File: "d/peer.txt"}},
		ours: figure{v: 1}, theirs: figure{v: 1}}
	want := "|  | 1.000 ms | 1.000 ms () | 1.00× |  |  | [d/go.txt](results/d/go.txt), [d/peer.txt](results/d/peer.txt) | `` |"
	if got := l.markdown("results"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
