package bench

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ParseCounts parses a comma-separated list of positive numbers, such as
// the "50,200,1000" of a -clients or -conns sweep, in the order given. A
// single number is a list of one; an empty entry, a number below 1 and a
// number given twice are errors.
func ParseCounts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q: want a comma-separated list of numbers of at least 1, got %q", s, f)
		}
		for _, m := range out {
			if m == n {
				return nil, fmt.Errorf("%q: %d is given twice", s, n)
			}
		}
		out = append(out, n)
	}
	return out, nil
}

// ProcessCPU returns the user and system CPU time process pid has used, all
// its threads together, the living and the exited (utime and stime of
// /proc/PID/stat, Linux only). A server's CPU time over a window is the
// difference of two readings.
func ProcessCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStatCPU(b, clockTick)
}

// parseStatCPU returns utime+stime of a /proc/PID/stat line in ticks of
// tick. The command name (field 2) is in parentheses and may itself hold
// spaces and parentheses, so the fields are counted after its last ')':
// state is field 3, utime field 14 and stime field 15 (proc(5)).
func parseStatCPU(stat []byte, tick time.Duration) (time.Duration, error) {
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc stat line without a command name: %.80q", stat)
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc stat line with %d fields after the command name, want at least 13", len(f))
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("/proc stat: utime/stime %q is not a tick count", s)
		}
		ticks += n
	}
	return time.Duration(ticks) * tick, nil
}

// clockTick is the unit of /proc's utime and stime: a second divided by
// sysconf(_SC_CLK_TCK). glibc's sysconf answers with the AT_CLKTCK entry
// the kernel puts in every process's auxiliary vector, which this reads
// from /proc/self/auxv; where that cannot be read it is 100 Hz, the
// USER_HZ that Linux reports on every architecture Go runs on (and what
// Go programs such as prometheus/procfs assume).
var clockTick = func() time.Duration {
	const atClkTck = 17 // AT_CLKTCK, <elf.h>
	if b, err := os.ReadFile("/proc/self/auxv"); err == nil {
		if hz, ok := auxvValue(b, atClkTck, strconv.IntSize/8); ok && hz > 0 && hz <= uint64(time.Second) {
			return time.Second / time.Duration(hz)
		}
	}
	return 10 * time.Millisecond
}()

// auxvValue returns the value of key in an auxiliary vector: pairs of
// native-endian words (key, value), ended by the key AT_NULL (0).
func auxvValue(auxv []byte, key uint64, wordSize int) (uint64, bool) {
	word := func(b []byte) uint64 {
		if wordSize == 4 {
			return uint64(binary.NativeEndian.Uint32(b))
		}
		return binary.NativeEndian.Uint64(b)
	}
	for len(auxv) >= 2*wordSize {
		k, v := word(auxv), word(auxv[wordSize:])
		if k == 0 {
			break
		}
		if k == key {
			return v, true
		}
		auxv = auxv[2*wordSize:]
	}
	return 0, false
}
