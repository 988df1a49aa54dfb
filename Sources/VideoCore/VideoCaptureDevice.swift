/// A V4L2 video device as `VIDIOC_QUERYCAP` describes it (linux/videodev2.h `struct
/// v4l2_capability`: driver[16], card[32], bus_info[32], then version, capabilities,
/// device_caps and reserved[3] as 32-bit host-order words; 104 bytes).
public struct VideoCaptureDevice: Sendable, Equatable, CustomStringConvertible {
    static let capabilitySize = 104
    static let capVideoCapture: UInt32 = 0x0000_0001
    static let capVideoCaptureMultiplanar: UInt32 = 0x0000_1000
    static let capStreaming: UInt32 = 0x0400_0000
    static let capDeviceCaps: UInt32 = 0x8000_0000

    /// `/dev/videoN`.
    public let path: String
    /// The driver (`uvcvideo`, `v4l2 loopback`).
    public let driver: String
    /// The device's name, what a person picks from (`card`).
    public let name: String
    public let busInfo: String
    /// The node's capabilities (`device_caps` when the driver fills it, else `capabilities`).
    public let capabilities: UInt32

    /// Whether the node captures video (a camera's metadata node does not).
    public var canCapture: Bool { capabilities & (Self.capVideoCapture | Self.capVideoCaptureMultiplanar) != 0 }

    /// Reads a `v4l2_capability` as the ioctl left it; nil when it is too short.
    public init?(path: String, capability bytes: [UInt8]) {
        guard bytes.count >= Self.capabilitySize else { return nil }
        func text(_ range: Range<Int>) -> String {
            String(decoding: bytes[range].prefix { $0 != 0 }, as: UTF8.self)
        }
        func word(_ at: Int) -> UInt32 {
            bytes[at..<(at + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        }
        self.path = path
        driver = text(0..<16)
        name = text(16..<48)
        busInfo = text(48..<80)
        let all = word(84), device = word(88)
        capabilities = all & Self.capDeviceCaps != 0 ? device : all
    }

    public var description: String { "\(path): \(name) (\(driver), \(busInfo))" }
}
