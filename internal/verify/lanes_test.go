package verify

import (
	"slices"
	"sync"
	"testing"
)

// TestInLanes: runs start in order, at most lanes at a time, and the next
// one starts when one ends.
func TestInLanes(t *testing.T) {
	tests := []struct {
		lanes, runs int
		wantMax     int
	}{
		{lanes: 1, runs: 3, wantMax: 1},
		{lanes: 2, runs: 3, wantMax: 2},
		{lanes: 2, runs: 2, wantMax: 2},
		{lanes: 4, runs: 3, wantMax: 3},
	}
	for _, tc := range tests {
		var (
			mu             sync.Mutex
			active, most   int
			started, ended []int
		)
		// The first min(lanes, runs) runs wait for each other, so a pool
		// that started more at once would be caught with them all active.
		first := min(tc.lanes, tc.runs)
		var barrier sync.WaitGroup
		barrier.Add(first)
		var runs []func()
		for i := range tc.runs {
			runs = append(runs, func() {
				mu.Lock()
				active++
				most = max(most, active)
				started = append(started, i)
				mu.Unlock()
				if i < first {
					barrier.Done()
					barrier.Wait()
				}
				mu.Lock()
				active--
				ended = append(ended, i)
				mu.Unlock()
			})
		}
		inLanes(tc.lanes, runs)
		if most != tc.wantMax || len(ended) != tc.runs {
			t.Errorf("lanes %d, %d runs: %d at once, %d ended; want %d, %d", tc.lanes, tc.runs, most, len(ended), tc.wantMax, tc.runs)
		}
		if tc.lanes == 1 && !slices.Equal(started, []int{0, 1, 2}) {
			t.Errorf("one lane started %v, want in order", started)
		}
		// A run past the first lanes starts after the first ones started.
		for _, i := range started[first:] {
			if i < first {
				t.Errorf("lanes %d: run %d started after a later one: %v", tc.lanes, i, started)
			}
		}
	}
}
