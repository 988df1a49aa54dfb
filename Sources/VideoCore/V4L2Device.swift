#if os(Linux)
import CV4L2
import Glibc

/// The system calls a V4L2 node is driven with: the kernel's, or a test's fake device. Each
/// returns what the call returns, -1 (nil for mmap) with errno set on failure.
package protocol V4L2Calls: Sendable {
    func open(_ path: String) -> Int32
    func close(_ descriptor: Int32)
    func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32
    func poll(_ descriptor: Int32, _ events: Int16, timeout milliseconds: Int32, revents: inout Int16) -> Int32
    func mmap(_ descriptor: Int32, length: Int, offset: Int) -> UnsafeMutableRawPointer?
    func munmap(_ address: UnsafeMutableRawPointer, length: Int)
}

/// The kernel's V4L2 (Documentation/userspace-api/media/v4l/func-*.rst).
package struct KernelV4L2: V4L2Calls {
    package init() {}
    package func open(_ path: String) -> Int32 { Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC) }
    package func close(_ descriptor: Int32) { posixClose(descriptor) }
    package func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        parley_v4l2_ioctl(descriptor, request, argument)
    }
    package func poll(_ descriptor: Int32, _ events: Int16, timeout milliseconds: Int32, revents: inout Int16) -> Int32 {
        var entry = pollfd(fd: descriptor, events: events, revents: 0)
        let result = Glibc.poll(&entry, 1, milliseconds)
        revents = entry.revents
        return result
    }
    package func mmap(_ descriptor: Int32, length: Int, offset: Int) -> UnsafeMutableRawPointer? {
        let address = Glibc.mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, off_t(offset))
        return address == UnsafeMutableRawPointer(bitPattern: -1) ? nil : address
    }
    package func munmap(_ address: UnsafeMutableRawPointer, length: Int) { _ = Glibc.munmap(address, length) }
}

/// An open V4L2 node and the ioctls capture needs (Documentation/userspace-api/media/v4l/
/// vidioc-*.rst), each failure a `VideoSourceError` naming the request. Closed on deinit.
final class V4L2Device {
    let path: String
    let descriptor: Int32
    let calls: any V4L2Calls

    /// Opens `path` non-blocking (so `VIDIOC_DQBUF` returns EAGAIN instead of waiting).
    init(path: String, calls: any V4L2Calls = KernelV4L2()) throws(VideoSourceError) {
        let descriptor = calls.open(path)
        guard descriptor >= 0 else { throw .io(path: path, operation: "open", errno: errno) }
        self.path = path
        self.descriptor = descriptor
        self.calls = calls
    }

    deinit { calls.close(descriptor) }

    /// The ioctl `request` on `argument`; false with errno set when it fails.
    func attempt<Argument>(_ request: UInt, _ argument: inout Argument) -> Bool {
        withUnsafeMutablePointer(to: &argument) { calls.ioctl(descriptor, request, $0) } == 0
    }

    /// The ioctl `request` (named `name` in the error) on `argument`.
    func control<Argument>(_ request: UInt, _ name: String, _ argument: inout Argument) throws(VideoSourceError) {
        guard attempt(request, &argument) else { throw .io(path: path, operation: name, errno: errno) }
    }

    /// `VIDIOC_QUERYCAP`; a node that does not answer it (ENOTTY: /dev/null, a file) is not V4L2.
    func capability() throws(VideoSourceError) -> VideoCaptureDevice {
        var capability = v4l2_capability()
        guard attempt(PARLEY_VIDIOC_QUERYCAP, &capability) else {
            let code = errno
            if code == ENOTTY || code == EINVAL { throw .capture(device: path, message: "not a V4L2 device") }
            throw .io(path: path, operation: "VIDIOC_QUERYCAP", errno: code)
        }
        return VideoCaptureDevice(path: path, capability: capability)
    }

    /// The capture formats (`VIDIOC_ENUM_FMT` until EINVAL) with their discrete sizes
    /// (`VIDIOC_ENUM_FRAMESIZES`), each list bounded.
    func offers() -> [CaptureFormatOffer] {
        var offers: [CaptureFormatOffer] = []
        for index in 0..<64 {
            var description = v4l2_fmtdesc()
            description.index = UInt32(index)
            description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            guard attempt(PARLEY_VIDIOC_ENUM_FMT, &description) else { break }
            offers.append(CaptureFormatOffer(fourcc: description.pixelformat, sizes: sizes(of: description.pixelformat)))
        }
        return offers
    }

    private func sizes(of fourcc: UInt32) -> [PixelSize] {
        var sizes: [PixelSize] = []
        for index in 0..<64 {
            var size = v4l2_frmsizeenum()
            size.index = UInt32(index)
            size.pixel_format = fourcc
            guard attempt(PARLEY_VIDIOC_ENUM_FRAMESIZES, &size), size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue else { break }
            sizes.append(PixelSize(width: Int(size.discrete.width), height: Int(size.discrete.height)))
        }
        return sizes
    }

    /// What `VIDIOC_S_FMT` and `VIDIOC_S_PARM` settled on.
    struct Negotiated {
        var pixelFormat: CapturePixelFormat
        var size: PixelSize
        var bytesPerLine: Int
        var frameRate: FrameRate
    }

    /// Asks for `choice` progressive at `frameRate` and takes what the driver returns (it may
    /// change the size, and the rate; a driver that cannot set the rate keeps `frameRate`).
    func negotiate(_ choice: CaptureFormatChoice, frameRate: FrameRate) throws(VideoSourceError) -> Negotiated {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        format.fmt.pix.width = UInt32(choice.size.width)
        format.fmt.pix.height = UInt32(choice.size.height)
        format.fmt.pix.pixelformat = choice.pixelFormat.rawValue
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try control(PARLEY_VIDIOC_S_FMT, "VIDIOC_S_FMT", &format)
        let pix = format.fmt.pix
        guard let pixelFormat = CapturePixelFormat(rawValue: pix.pixelformat) else {
            throw .capture(device: path, message: "the driver set \(CapturePixelFormat.text(ofFourCC: pix.pixelformat)), which Parley does not convert")
        }
        let size = PixelSize(width: Int(pix.width), height: Int(pix.height))
        guard VideoLimits.accepts(width: size.width, height: size.height) else {
            throw .capture(device: path, message: "the driver set an unusable size \(size)")
        }
        let bytesPerLine = max(Int(pix.bytesperline), pixelFormat.minimumBytesPerLine(width: size.width))

        // Frame interval (seconds per frame) is the inverse of the rate (vidioc-g-parm.rst).
        var parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        parameters.parm.capture.timeperframe = v4l2_fract(numerator: UInt32(frameRate.denominator), denominator: UInt32(frameRate.numerator))
        var rate = frameRate
        if attempt(PARLEY_VIDIOC_S_PARM, &parameters), parameters.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 {
            let interval = parameters.parm.capture.timeperframe
            rate = FrameRate(numerator: Int(interval.denominator), denominator: Int(interval.numerator)) ?? frameRate
        }
        return Negotiated(pixelFormat: pixelFormat, size: size, bytesPerLine: bytesPerLine, frameRate: rate)
    }
}
#endif
