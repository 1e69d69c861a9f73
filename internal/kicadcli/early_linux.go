package kicadcli

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"syscall"
)

// watchClosed calls on[name] with the file's path each time a file named
// name in dir is closed after writing (inotify IN_CLOSE_WRITE), until stop.
// Events are handled in order on one goroutine; stop waits for it. A
// watcher that cannot be set up watches nothing.
func watchClosed(dir string, on map[string]func(path string)) (stop func()) {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return func() {}
	}
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_CLOSE_WRITE); err != nil {
		syscall.Close(fd)
		return func() {}
	}
	// A non-blocking descriptor is read through the runtime's poller, so
	// Close ends a Read that waits.
	f := os.NewFile(uintptr(fd), "inotify "+dir)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64*(syscall.SizeofInotifyEvent+syscall.NAME_MAX+1))
		for {
			n, err := f.Read(buf)
			if err != nil {
				return
			}
			for _, name := range closedNames(buf[:n]) {
				if cb := on[name]; cb != nil {
					cb(filepath.Join(dir, name))
				}
			}
		}
	}()
	return func() {
		f.Close()
		<-done
	}
}

// closedNames reads the file names of a buffer of inotify events (struct
// inotify_event: wd, mask, cookie, len, then len bytes of NUL-padded name).
func closedNames(buf []byte) []string {
	var names []string
	for len(buf) >= syscall.SizeofInotifyEvent {
		n := int(binary.NativeEndian.Uint32(buf[12:16]))
		end := syscall.SizeofInotifyEvent + n
		if end > len(buf) {
			break
		}
		if name := string(bytes.TrimRight(buf[syscall.SizeofInotifyEvent:end], "\x00")); name != "" {
			names = append(names, name)
		}
		buf = buf[end:]
	}
	return names
}
