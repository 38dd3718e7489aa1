package cuda_test

import (
	"fmt"
	"log"

	"github.com/ecl-go/ecl/kernels/cuda"
	"github.com/ecl-go/ecl/tensor"
)

// Count and sum values per bin on the CPU with the pure-Go reference that
// the device's HardBinSums kernel is checked against; it runs in every
// build. Four samples in one group fall in bins 0, 2, 2 and 1 of three.
func ExampleHardBinSumsCPU() {
	bin := tensor.FromSlice([]float64{0, 2, 2, 1}, 4, 1)
	v := tensor.FromSlice([]float64{0.5, 0.25, 0.75, 1}, 4, 1, 1)
	count, sum, err := cuda.HardBinSumsCPU(bin, v, 3)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(count.Shape(), count.Data())
	fmt.Println(sum.Shape(), sum.Data())
	_, _, err = cuda.HardBinSumsCPU(tensor.FromSlice([]float64{1.5}, 1, 1), tensor.FromSlice([]float64{1}, 1, 1, 1), 3)
	fmt.Println(err)
	// Output:
	// [1 3] [1 1 2]
	// [1 3 1] [0.5 1 1]
	// cuda.HardBinSums: bin 1.5 of sample 0 (group 0) is not an integer in [0, 3)
}
