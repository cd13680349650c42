package safefile

import "syscall"

const eftype = syscall.EFTYPE
