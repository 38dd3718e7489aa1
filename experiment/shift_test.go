package experiment

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/sim"
)

// Shifts are written as the names result files have always held and read
// back from them; a name that is neither a simulated shift nor a target
// fails with the name.
func TestShiftIDNames(t *testing.T) {
	for _, c := range []struct {
		id   ShiftID
		name string
	}{
		{SimShift(sim.Normal), "normal"},
		{SimShift(sim.Uniform), "uniform"},
		{SimShift(sim.NormalWide), "normal-wide"},
		{SimShift(sim.UniformWide), "uniform-wide"},
		{DigitsShift("usps"), "→usps"},
		{DigitsShift("mnist"), "→mnist"},
	} {
		b, err := json.Marshal(Result{Shift: c.id})
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"Shift":"` + c.name + `",`; !strings.HasPrefix(string(b), want) {
			t.Errorf("%v: JSON %s, want it to start %s", c.id, b, want)
		}
		var back Result
		if err := json.Unmarshal(b, &back); err != nil || back.Shift != c.id {
			t.Errorf("%s: read back as %v, %v", c.name, back.Shift, err)
		}
	}
	for _, bad := range []string{"s", "", "→", "Normal"} {
		var r Result
		err := json.Unmarshal([]byte(`{"Shift":"`+bad+`"}`), &r)
		if err == nil || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("shift %q: error %v", bad, err)
		}
	}
}
