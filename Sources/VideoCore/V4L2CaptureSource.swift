#if os(Linux)
import CV4L2
import Glibc
import ParleyCore
import Synchronization

/// A camera on Linux: a V4L2 capture node streamed with mmap buffers (Documentation/
/// userspace-api/media/v4l/mmap.rst), each frame converted into I420 and pushed from the
/// source's own thread. The format is set when the source is made: a pixel format Parley
/// converts (YUYV, NV12, I420, YV12; not MJPEG), at the size asked for or the nearest the
/// driver takes, and the rate the driver accepts. Frames carry the driver's capture time on the
/// 90 kHz clock, from 0 at the first frame. When the consumer is slower than the camera, only the
/// newest frame waits for it and older ones are dropped. A device that fails or is unplugged
/// ends the run: `onEnd` gets the error.
public final class V4L2CaptureSource: VideoSource {
    /// 4 buffers: one being filled, one with the consumer, two to absorb jitter (mmap.rst).
    static let bufferCount = 4

    public let format: VideoFormat
    /// The device as `VIDIOC_QUERYCAP` described it.
    public let device: VideoCaptureDevice
    /// The pixel format the driver sends.
    public let pixelFormat: CapturePixelFormat
    private let bytesPerLine: Int
    private let node: Mutex<V4L2Device>
    private let thread: VideoSourceThread
    private let dropped = Atomic<Int>(0)

    /// Opens `path` and sets its format; throws when it is not a V4L2 capture node that streams,
    /// or offers no format Parley converts.
    /// - Parameter onEnd: called once from the source's thread when capture fails (the device
    ///   unplugged, a driver error); not after `stop()`.
    public convenience init(path: String, format requested: VideoFormat,
                            onEnd: (@Sendable (VideoSourceError?) -> Void)? = nil) throws(VideoSourceError) {
        try self.init(path: path, format: requested, calls: KernelV4L2(), onEnd: onEnd)
    }

    /// The same on `calls` (tests drive a fake device).
    package init(path: String, format requested: VideoFormat, calls: any V4L2Calls,
                 onEnd: (@Sendable (VideoSourceError?) -> Void)?) throws(VideoSourceError) {
        let node = try V4L2Device(path: path, calls: calls)
        device = try node.capability()
        guard device.canStream else {
            throw .capture(device: path, message: "not a single-planar capture device with streaming I/O (capabilities 0x\(String(device.capabilities, radix: 16)))")
        }
        let offers = node.offers()
        guard let choice = CaptureFormatChoice.choose(from: offers, requested: PixelSize(width: requested.width, height: requested.height)) else {
            throw .capture(device: path, message: "no format Parley converts (offers \(offers.map { CapturePixelFormat.text(ofFourCC: $0.fourcc) }.joined(separator: ", ")))")
        }
        let negotiated = try node.negotiate(choice, frameRate: requested.frameRate)
        format = VideoFormat(width: negotiated.size.width, height: negotiated.size.height, frameRate: negotiated.frameRate)
        pixelFormat = negotiated.pixelFormat
        bytesPerLine = negotiated.bytesPerLine
        self.node = Mutex(node)
        thread = VideoSourceThread(onEnd: onEnd)
    }

    deinit { stop() }

    public var isRunning: Bool { thread.isRunning }
    /// Frames dropped because a newer one was ready before the consumer took the older.
    public var droppedFrames: Int { dropped.load(ordering: .relaxed) }

    public func start(_ consumer: @escaping VideoFrameConsumer) throws(VideoSourceError) {
        try thread.start { [self] in
            node.withLock { node in
                do throws(VideoSourceError) {
                    try stream(node, to: consumer)
                    return .stopped
                } catch { return .failed(error) }
            }
        }
    }

    public func stop() { thread.stop() }

    /// REQBUFS, mmap and queue the buffers, STREAMON, then frames until `stop()`; STREAMOFF and
    /// the buffers released on the way out, however it ends.
    private func stream(_ node: V4L2Device, to consumer: VideoFrameConsumer) throws(VideoSourceError) {
        let buffers = try V4L2Buffers(node, count: Self.bufferCount)
        for index in buffers.mappings.indices { try buffers.queue(UInt32(index)) }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try node.control(PARLEY_VIDIOC_STREAMON, "VIDIOC_STREAMON", &type)
        defer {
            _ = node.attempt(PARLEY_VIDIOC_STREAMOFF, &type)
            withExtendedLifetime(buffers) {}  // unmapped and freed only after STREAMOFF
        }

        var frame = I420Frame(width: format.width, height: format.height)
        var firstMicroseconds: Int64?
        while !thread.shouldStop {
            guard try node.waitReadable(milliseconds: 50) else { continue }
            guard let buffer = try newestFilled(buffers) else { continue }
            guard buffer.index < buffers.mappings.count else {
                throw .capture(device: node.path, message: "the driver returned buffer \(buffer.index) of \(buffers.mappings.count)")
            }
            let mapping = buffers.mappings[Int(buffer.index)]
            let used = UnsafeRawBufferPointer(rebasing: mapping[..<min(Int(buffer.bytesused), mapping.count)])
            let converted = buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) == 0
                && pixelFormat.convert(used, bytesPerLine: bytesPerLine, into: &frame)
            try buffers.queue(buffer.index)
            guard converted else { continue }  // a corrupt or short frame: skip it
            let microseconds = Self.microseconds(buffer.timestamp)
            let first = firstMicroseconds ?? microseconds
            firstMicroseconds = first
            frame.timestamp = UInt32(truncatingIfNeeded: (microseconds - first) * 9 / 100)
            consumer(frame)
        }
    }

    /// Dequeues every filled buffer and gives back all but the newest; nil when none was ready.
    private func newestFilled(_ buffers: V4L2Buffers) throws(VideoSourceError) -> v4l2_buffer? {
        var newest: v4l2_buffer?
        while let buffer = try buffers.dequeue() {
            if let older = newest {
                try buffers.queue(older.index)
                dropped.add(1, ordering: .relaxed)
            }
            newest = buffer
        }
        return newest
    }

    /// The buffer's capture time (CLOCK_MONOTONIC for most drivers, buffer.rst), or now when
    /// the driver leaves it zero.
    static func microseconds(_ time: timeval) -> Int64 {
        let value = Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_usec)
        return value > 0 ? value : SystemClock.now.nanoseconds / 1_000
    }
}

extension V4L2Device {
    /// Waits up to `milliseconds` for a filled buffer; throws when the device reports an error
    /// with nothing to read (unplugged, or no longer streaming).
    func waitReadable(milliseconds: Int32) throws(VideoSourceError) -> Bool {
        var revents: Int16 = 0
        let result = calls.poll(descriptor, Int16(POLLIN), timeout: milliseconds, revents: &revents)
        if result < 0 {
            if errno == EINTR { return false }
            throw .io(path: path, operation: "poll", errno: errno)
        }
        if revents & Int16(POLLIN) != 0 { return true }
        if revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
            throw .capture(device: path, message: "the device stopped streaming (unplugged?)")
        }
        return false
    }
}

/// A node's mmap buffers (`VIDIOC_REQBUFS`, `VIDIOC_QUERYBUF`, mmap), unmapped and freed
/// (REQBUFS with count 0) on deinit.
final class V4L2Buffers {
    private let node: V4L2Device
    private(set) var mappings: [UnsafeMutableRawBufferPointer] = []

    init(_ node: V4L2Device, count: Int) throws(VideoSourceError) {
        self.node = node
        var request = v4l2_requestbuffers()
        request.count = UInt32(count)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try node.control(PARLEY_VIDIOC_REQBUFS, "VIDIOC_REQBUFS", &request)
        guard request.count >= 2 else {
            throw .capture(device: node.path, message: "the driver gave \(request.count) buffer(s), capture needs 2")
        }
        for index in 0..<request.count {
            var buffer = Self.buffer(index)
            try node.control(PARLEY_VIDIOC_QUERYBUF, "VIDIOC_QUERYBUF", &buffer)
            let length = Int(buffer.length)
            guard let address = node.calls.mmap(node.descriptor, length: length, offset: Int(buffer.m.offset)) else {
                throw .io(path: node.path, operation: "mmap", errno: errno)
            }
            mappings.append(UnsafeMutableRawBufferPointer(start: address, count: length))
        }
    }

    deinit {
        for mapping in mappings { node.calls.munmap(mapping.baseAddress!, length: mapping.count) }
        var release = v4l2_requestbuffers()
        release.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        release.memory = V4L2_MEMORY_MMAP.rawValue
        _ = node.attempt(PARLEY_VIDIOC_REQBUFS, &release)
    }

    static func buffer(_ index: UInt32) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.index = index
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        return buffer
    }

    /// Gives buffer `index` back to the driver to fill.
    func queue(_ index: UInt32) throws(VideoSourceError) {
        var buffer = Self.buffer(index)
        try node.control(PARLEY_VIDIOC_QBUF, "VIDIOC_QBUF", &buffer)
    }

    /// A filled buffer, or nil when none is ready (EAGAIN on the non-blocking node).
    func dequeue() throws(VideoSourceError) -> v4l2_buffer? {
        var buffer = Self.buffer(0)
        if node.attempt(PARLEY_VIDIOC_DQBUF, &buffer) { return buffer }
        let code = errno
        if code == EAGAIN { return nil }
        if code == ENODEV { throw .capture(device: node.path, message: "the device was unplugged") }
        throw .io(path: node.path, operation: "VIDIOC_DQBUF", errno: code)
    }
}
#endif
