// Command histogram-bench runs one phase of the side-by-side histogram benchmark on
// upstream's Vertical Pod Autoscaler code (the k8s.io/autoscaler/vertical-pod-autoscaler
// module, used as a dependency) and prints what it measured as one line of JSON.
//
// The workload is generated from a seed by the same 32-bit LCG as
// tools/src/bench/go-side-by-side.bench.ts, so both sides see the very same samples:
//
//	add         samples added to a fresh decaying CPU histogram (ns per sample)
//	percentile  Percentile(0.9) on that histogram once filled (ns per query)
//	heap        heap per aggregate state fed a day of usage (bytes per state, after GC)
//	checkpoint  AggregateContainerState.SaveToCheckpoint (ns per state)
//	checkpoint-json  the same, then json.Marshal of the status (ns per state)
//	verify      the numbers both sides must agree on, bit for bit
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"syscall"
	"time"

	vpa_types "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/model"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/util"
)

// 2026-01-01T00:00:00Z in Unix milliseconds: the first sample's time.
const startMs = 1767225600000

// Samples of the add phase are 6 s apart; a day of usage has one CPU sample every 5 min
// and one memory sample every hour.
const (
	sampleStepMs     = 6000
	cpuStepMs        = 5 * 60 * 1000
	cpuSamplesPerDay = 288
	memStepMs        = 60 * 60 * 1000
	memSamplesPerDay = 24
	sampleWeight     = 0.1
	// Each timed repetition saves every state's checkpoint this many times.
	checkpointPasses = 5
)

// The percentiles compared bit for bit.
var verifiedPercentiles = []float64{0, 0.1, 0.5, 0.9, 0.95, 0.99, 1}

type lcg struct{ state uint32 }

func (g *lcg) next() uint32 {
	g.state = g.state*1664525 + 1013904223
	return g.state
}

var decades = [3]int64{1, 10, 100}

// CPU samples in millicores spread over three decades: 10m..99m, 100m..990m, 1..9.9 cores.
func cpuMillicores(g *lcg) int64 {
	r := g.next()
	return (10 + int64((r>>10)%90)) * decades[(r>>29)%3]
}

func addWorkload(count int, seed uint32) ([]float64, []time.Time) {
	g := lcg{seed}
	values := make([]float64, count)
	times := make([]time.Time, count)
	for i := range values {
		values[i] = model.CoresFromCPUAmount(model.ResourceAmount(cpuMillicores(&g)))
		times[i] = time.UnixMilli(startMs + int64(i)*sampleStepMs)
	}
	return values, times
}

// The recommender's own CPU histogram: NewExponentialHistogramOptions(1000.0, 0.01,
// 1.+0.05, 0.001*0.1) and a 24 h half-life, as NewAggregateContainerState makes it.
func newCPUHistogram() util.Histogram {
	config := model.GetAggregationsConfig()
	return util.NewDecayingHistogram(config.CPUHistogramOptions, config.CPUHistogramDecayHalfLife)
}

func filledHistogram(values []float64, times []time.Time) util.Histogram {
	h := newCPUHistogram()
	for i, v := range values {
		h.AddSample(v, sampleWeight, times[i])
	}
	return h
}

// Aggregate states fed a day of usage each around a per-state profile (10m..4 cores,
// 50Mi..~8Gi): CPU ±30 % every 5 min, memory ±10 % every hour.
func aggregateStates(count int, seed uint32) []*model.AggregateContainerState {
	g := lcg{seed}
	states := make([]*model.AggregateContainerState, count)
	for s := range states {
		baseMillicores := 10 + int64(g.next()>>8)%4000
		baseBytes := 52428800 + int64(g.next()>>8)%8000*1048576
		state := model.NewAggregateContainerState()
		for i := int64(0); i < cpuSamplesPerDay; i++ {
			usage := baseMillicores * (70 + int64(g.next()>>8)%61) / 100
			state.AddSample(&model.ContainerUsageSample{
				MeasureStart: time.UnixMilli(startMs + i*cpuStepMs),
				Usage:        model.ResourceAmount(usage),
				Resource:     model.ResourceCPU,
			})
		}
		for i := int64(0); i < memSamplesPerDay; i++ {
			usage := baseBytes * (90 + int64(g.next()>>8)%21) / 100
			state.AddSample(&model.ContainerUsageSample{
				MeasureStart: time.UnixMilli(startMs + (i+1)*memStepMs),
				Usage:        model.ResourceAmount(usage),
				Resource:     model.ResourceMemory,
			})
		}
		states[s] = state
	}
	return states
}

type result struct {
	Phase             string        `json:"phase"`
	NsPerOp           []float64     `json:"nsPerOp,omitempty"`
	HeapBytesPerState float64       `json:"heapBytesPerState,omitempty"`
	Verify            *verification `json:"verify,omitempty"`
	GoVersion         string        `json:"goVersion"`
}

type verification struct {
	Percentiles []float64                                          `json:"percentiles"`
	Histogram   *vpa_types.HistogramCheckpoint                     `json:"histogram"`
	States      []*vpa_types.VerticalPodAutoscalerCheckpointStatus `json:"states"`
}

var sink float64

// CPU time of the whole process (user + system, every thread, so the garbage collector's
// too), in nanoseconds: what Node's process.cpuUsage() reports on the other side. Unlike
// wall time it leaves out waiting for a core, which a shared machine is full of.
func cpuNanos() int64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		panic(err)
	}
	return usage.Utime.Nano() + usage.Stime.Nano()
}

func timed(reps int, ops int, run func()) []float64 {
	timings := make([]float64, reps)
	for r := range timings {
		start := cpuNanos()
		run()
		timings[r] = float64(cpuNanos()-start) / float64(ops)
	}
	return timings
}

func heapAfterGC() uint64 {
	var stats runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&stats)
	return stats.HeapAlloc
}

func main() {
	phase := flag.String("phase", "", "add | percentile | heap | checkpoint | checkpoint-json | verify")
	samples := flag.Int("samples", 100000, "samples in the CPU histogram")
	queries := flag.Int("queries", 200000, "Percentile(0.9) calls per repetition")
	states := flag.Int("states", 1000, "aggregate states")
	seed := flag.Uint("seed", 1, "workload seed")
	reps := flag.Int("reps", 5, "timed repetitions")
	flag.Parse()

	out := result{Phase: *phase, GoVersion: runtime.Version()}
	switch *phase {
	case "add":
		values, times := addWorkload(*samples, uint32(*seed))
		out.NsPerOp = timed(*reps, *samples, func() {
			h := newCPUHistogram()
			for i, v := range values {
				h.AddSample(v, sampleWeight, times[i])
			}
			sink += h.Percentile(0.5)
		})
	case "percentile":
		h := filledHistogram(addWorkload(*samples, uint32(*seed)))
		out.NsPerOp = timed(*reps, *queries, func() {
			for i := 0; i < *queries; i++ {
				sink += h.Percentile(0.9)
			}
		})
	case "heap":
		before := heapAfterGC()
		built := aggregateStates(*states, uint32(*seed))
		after := heapAfterGC()
		runtime.KeepAlive(built)
		out.HeapBytesPerState = float64(after-before) / float64(*states)
	case "checkpoint", "checkpoint-json":
		built := aggregateStates(*states, uint32(*seed))
		encode := *phase == "checkpoint-json"
		out.NsPerOp = timed(*reps, checkpointPasses*len(built), func() {
			for pass := 0; pass < checkpointPasses; pass++ {
				for _, state := range built {
					status, err := state.SaveToCheckpoint()
					if err != nil {
						panic(err)
					}
					if encode {
						text, err := json.Marshal(status)
						if err != nil {
							panic(err)
						}
						sink += float64(len(text))
					} else {
						sink += status.CPUHistogram.TotalWeight
					}
				}
			}
		})
	case "verify":
		h := filledHistogram(addWorkload(*samples, uint32(*seed)))
		v := verification{}
		for _, p := range verifiedPercentiles {
			v.Percentiles = append(v.Percentiles, h.Percentile(p))
		}
		checkpoint, err := h.SaveToChekpoint()
		if err != nil {
			panic(err)
		}
		v.Histogram = checkpoint
		for _, state := range aggregateStates(*states, uint32(*seed)) {
			status, err := state.SaveToCheckpoint()
			if err != nil {
				panic(err)
			}
			v.States = append(v.States, status)
		}
		out.Verify = &v
	default:
		fmt.Fprintf(os.Stderr, "unknown -phase %q\n", *phase)
		os.Exit(2)
	}
	if math.IsNaN(sink) {
		fmt.Fprintln(os.Stderr, "NaN")
	}
	sort.Float64s(out.NsPerOp)
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}
