package calibrate

import (
	"slices"
	"sync"
	"testing"
	"time"
)

func TestLongestFirst(t *testing.T) {
	methods := []string{"uncal", "ts", "ms", "hist", "ecl", "transcal", "dirichlet", "cpcs"}
	var got []string
	for _, i := range longestFirst(methods) {
		got = append(got, methods[i])
	}
	want := []string{"ecl", "dirichlet", "ms", "transcal", "uncal", "ts", "hist", "cpcs"}
	if !slices.Equal(got, want) {
		t.Fatalf("start order %v, want %v", got, want)
	}
}

// TestSchedule checks that schedule runs every method once, never more than
// jobs at a time nor two heavy ones at once, and starts the heavy ones
// longest first.
func TestSchedule(t *testing.T) {
	methods := []string{"uncal", "ts", "ms", "hist", "ecl", "transcal", "dirichlet", "cpcs"}
	for _, jobs := range []int{1, 2, 3} {
		var mu sync.Mutex
		var started []string
		running, heavyRunning, ran := 0, 0, make([]int, len(methods))
		schedule(methods, jobs, func(i int) {
			mu.Lock()
			started = append(started, methods[i])
			running++
			if heavy(methods[i]) {
				heavyRunning++
			}
			if running > jobs || heavyRunning > 1 {
				t.Errorf("jobs %d: %d running, %d heavy, at %s", jobs, running, heavyRunning, methods[i])
			}
			ran[i]++
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			running--
			if heavy(methods[i]) {
				heavyRunning--
			}
			mu.Unlock()
		})
		for i, n := range ran {
			if n != 1 {
				t.Errorf("jobs %d: %s ran %d times", jobs, methods[i], n)
			}
		}
		heavies := slices.DeleteFunc(started, func(m string) bool { return !heavy(m) })
		if !slices.Equal(heavies, []string{"ecl", "dirichlet", "ms"}) {
			t.Errorf("jobs %d: heavy methods started as %v, want the longest first", jobs, heavies)
		}
	}
}
