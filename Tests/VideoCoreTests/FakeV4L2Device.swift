#if os(Linux)
import CV4L2
import Glibc
import Foundation
@testable import VideoCore

/// A V4L2 capture device in memory, behind `V4L2Calls`, so the capture loop runs without a
/// camera: it offers YUYV at 640x480 and 320x240 (and MJPEG), caps the rate at 15 fps, pads each
/// line by 32 bytes, and on every poll fills up to `burst` queued buffers with frames whose luma is
/// their sequence number (1, 2, …). `unplug()` makes it fail as a removed USB camera does.
final class FakeV4L2Device: V4L2Calls, @unchecked Sendable {
    // @unchecked: `state` is only touched under `lock` (the ioctl arguments are raw pointers,
    // which a Mutex's region checking will not let into its closure).
    static let descriptor: Int32 = 1_000, burst = 3, frameMicroseconds = 66_667

    struct State {
        var width = 0, height = 0, bytesPerLine = 0
        var buffers: [UnsafeMutableRawPointer] = []
        var queued: [UInt32] = [], filled: [UInt32] = []
        var streaming = false, unplugged = false
        var sequence: UInt32 = 0
        var calls: [String] = []
    }
    private var state = State()
    private let lock = NSLock()

    private func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    deinit { state.buffers.forEach { $0.deallocate() } }

    func unplug() { withLock { $0.unplugged = true } }
    func count(_ call: String) -> Int { withLock { $0.calls.filter { $0 == call }.count } }

    func open(_ path: String) -> Int32 { path == "/dev/fake" ? Self.descriptor : fail(ENOENT) }
    func close(_ descriptor: Int32) {}
    func munmap(_ address: UnsafeMutableRawPointer, length: Int) { withLock { $0.calls.append("munmap") } }

    func mmap(_ descriptor: Int32, length: Int, offset: Int) -> UnsafeMutableRawPointer? {
        withLock { s in offset / 0x1_0000 < s.buffers.count ? s.buffers[offset / 0x1_0000] : nil }
    }

    func poll(_ descriptor: Int32, _ events: Int16, timeout milliseconds: Int32, revents: inout Int16) -> Int32 {
        usleep(2_000)
        let ready = withLock { s -> Int16 in
            if s.unplugged { return Int16(POLLERR | POLLHUP) }
            guard s.streaming else { return Int16(POLLERR) }
            for _ in 0..<min(Self.burst, s.queued.count) { fill(&s, s.queued.removeFirst()) }
            return s.filled.isEmpty ? 0 : Int16(POLLIN)
        }
        revents = ready
        return ready == 0 ? 0 : 1
    }

    /// YUYV with Y = the frame's sequence number, U 100, V 200; padding 0xEE.
    private func fill(_ s: inout State, _ index: UInt32) {
        s.sequence += 1
        let luma = UInt8(truncatingIfNeeded: s.sequence)
        let pattern: [UInt8] = [luma, 100, luma, 200]
        let line = (0..<s.bytesPerLine).map { $0 < 2 * s.width ? pattern[$0 % 4] : 0xEE }
        for row in 0..<s.height {
            (s.buffers[Int(index)] + row * s.bytesPerLine).copyMemory(from: line, byteCount: line.count)
        }
        s.filled.append(index)
    }

    func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        let result = withLock { s in handle(&s, request, argument) }
        return result == 0 ? 0 : fail(result)
    }

    private func fail(_ code: Int32) -> Int32 {
        errno = code
        return -1
    }

    /// 0, or the errno to fail with.
    private func handle(_ s: inout State, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        if s.unplugged { return ENODEV }
        let capture = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        let sizes = [(640, 480), (320, 240)]
        switch request {
        case PARLEY_VIDIOC_QUERYCAP:
            let capability = argument.assumingMemoryBound(to: v4l2_capability.self)
            capability.pointee = v4l2_capability()
            withUnsafeMutableBytes(of: &capability.pointee.card) { $0.copyBytes(from: Array("Fake Camera".utf8)) }
            capability.pointee.device_caps = UInt32(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING)
            capability.pointee.capabilities = capability.pointee.device_caps | V4L2_CAP_DEVICE_CAPS
        case PARLEY_VIDIOC_ENUM_FMT:
            let description = argument.assumingMemoryBound(to: v4l2_fmtdesc.self)
            let formats: [UInt32] = [0x4750_4A4D, PARLEY_V4L2_PIX_FMT_YUYV]  // MJPG, YUYV
            guard description.pointee.index < formats.count else { return EINVAL }
            description.pointee.pixelformat = formats[Int(description.pointee.index)]
        case PARLEY_VIDIOC_ENUM_FRAMESIZES:
            let size = argument.assumingMemoryBound(to: v4l2_frmsizeenum.self)
            guard size.pointee.index < sizes.count else { return EINVAL }
            size.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
            size.pointee.discrete = v4l2_frmsize_discrete(width: UInt32(sizes[Int(size.pointee.index)].0),
                                                          height: UInt32(sizes[Int(size.pointee.index)].1))
        case PARLEY_VIDIOC_S_FMT:
            let format = argument.assumingMemoryBound(to: v4l2_format.self)
            guard format.pointee.type == capture, format.pointee.fmt.pix.pixelformat == PARLEY_V4L2_PIX_FMT_YUYV else { return EINVAL }
            let asked = (Int(format.pointee.fmt.pix.width), Int(format.pointee.fmt.pix.height))
            (s.width, s.height) = sizes.contains { $0 == asked } ? asked : sizes[0]
            s.bytesPerLine = 2 * s.width + 32
            format.pointee.fmt.pix.width = UInt32(s.width)
            format.pointee.fmt.pix.height = UInt32(s.height)
            format.pointee.fmt.pix.bytesperline = UInt32(s.bytesPerLine)
            format.pointee.fmt.pix.sizeimage = UInt32(s.bytesPerLine * s.height)
        case PARLEY_VIDIOC_S_PARM:
            let parameters = argument.assumingMemoryBound(to: v4l2_streamparm.self)
            parameters.pointee.parm.capture.capability = UInt32(V4L2_CAP_TIMEPERFRAME)
            parameters.pointee.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: 15)
        case PARLEY_VIDIOC_REQBUFS:
            let request = argument.assumingMemoryBound(to: v4l2_requestbuffers.self)
            guard !s.streaming else { return EBUSY }
            s.calls.append(request.pointee.count == 0 ? "free" : "reqbufs")
            s.buffers.forEach { $0.deallocate() }
            s.buffers = (0..<min(Int(request.pointee.count), 4)).map { _ in
                UnsafeMutableRawPointer.allocate(byteCount: s.bytesPerLine * s.height, alignment: 64)
            }
            s.queued = []
            s.filled = []
            request.pointee.count = UInt32(s.buffers.count)
        case PARLEY_VIDIOC_QUERYBUF:
            let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self)
            guard buffer.pointee.index < s.buffers.count else { return EINVAL }
            buffer.pointee.length = UInt32(s.bytesPerLine * s.height)
            buffer.pointee.m.offset = buffer.pointee.index * 0x1_0000
        case PARLEY_VIDIOC_QBUF:
            let index = argument.assumingMemoryBound(to: v4l2_buffer.self).pointee.index
            guard index < s.buffers.count, !s.queued.contains(index), !s.filled.contains(index) else { return EINVAL }
            s.queued.append(index)
        case PARLEY_VIDIOC_DQBUF:
            let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self)
            guard s.streaming, !s.filled.isEmpty else { return EAGAIN }
            buffer.pointee.index = s.filled.removeFirst()
            buffer.pointee.bytesused = UInt32(s.bytesPerLine * s.height)
            let sequence = Int(s.sequence) - s.filled.count  // the filled list is in sequence order
            let microseconds = 5_000_000 + sequence * Self.frameMicroseconds
            buffer.pointee.timestamp = timeval(tv_sec: microseconds / 1_000_000, tv_usec: microseconds % 1_000_000)
        case PARLEY_VIDIOC_STREAMON:
            s.streaming = true
            s.calls.append("streamon")
        case PARLEY_VIDIOC_STREAMOFF:
            s.streaming = false
            s.queued = []
            s.filled = []
            s.calls.append("streamoff")
        default:
            return ENOTTY
        }
        return 0
    }
}
#endif
