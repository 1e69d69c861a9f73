package procgroup

import "syscall"

// dieWithParent has the kernel SIGKILL the program when the OS thread that
// started it ends. The Go runtime ends a thread only when a goroutine
// locked to it returns without unlocking, which nothing in this module
// does (chromedp, which locks, unlocks), so in practice that is when the
// process ends (go.dev/issue/27505).
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
