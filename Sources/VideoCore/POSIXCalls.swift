#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The system calls whose names the file types' own methods shadow (`read`, `close`).

func posixRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

func posixClose(_ descriptor: Int32) {
    _ = close(descriptor)
}
