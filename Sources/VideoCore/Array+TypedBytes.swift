// The standard library's `withUnsafe…Bytes` rethrow untyped errors; these keep
// `VideoSourceError` typed through the file readers and writers.

extension Array where Element == UInt8 {
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(VideoSourceError) -> R) throws(VideoSourceError) -> R {
        try withUnsafeBytes { p in Result { () throws(VideoSourceError) -> R in try body(p) } }.get()
    }

    mutating func withMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws(VideoSourceError) -> R) throws(VideoSourceError) -> R {
        try withUnsafeMutableBytes { p in Result { () throws(VideoSourceError) -> R in try body(p) } }.get()
    }
}
