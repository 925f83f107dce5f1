package admin

// cpuTimes is not measured on Windows.
func cpuTimes() (sys, user, childSys, childUser float64) { return 0, 0, 0, 0 }
