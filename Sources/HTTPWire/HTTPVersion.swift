/// An HTTP version (RFC 9112 §2.3).
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    public var description: String { "HTTP/\(major).\(minor)" }

    /// Parses `HTTP/x.y` (RFC 9112 §2.3: one digit each).
    init?(bytes: ArraySlice<UInt8>) {
        let b = Array(bytes)
        guard b.count == 8, b[0] == 0x48, b[1] == 0x54, b[2] == 0x54, b[3] == 0x50, b[4] == 0x2F,
              b[6] == 0x2E, isDigit(b[5]), isDigit(b[7]) else { return nil }
        self.init(major: Int(b[5] - 0x30), minor: Int(b[7] - 0x30))
    }
}

func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
