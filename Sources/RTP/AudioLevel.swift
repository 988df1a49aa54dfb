import WireKit

/// The client-to-mixer audio level element (RFC 6464 §3): one byte, the voice-activity flag in
/// the top bit and the level in -dBov (0 loudest, 127 silence) below it.
public struct AudioLevel: Sendable, Hashable {
    /// The V bit: the sender believes the packet contains voice (§3).
    public var voiceActivity: Bool
    /// Level as -dBov, 0–127 (§3: 127 means the muted/silent level).
    public var level: UInt8

    public init(voiceActivity: Bool, level: UInt8) {
        self.voiceActivity = voiceActivity
        self.level = min(level, 127)
    }

    /// Decodes the first byte of an element's data (the two-byte form may carry padding after it).
    public init(parsing data: UnsafeRawBufferPointer) throws(RTPError) {
        guard let byte = data.first else { throw .elementTooShort(needed: 1, available: 0) }
        voiceActivity = byte & 0x80 != 0
        level = byte & 0x7F
    }

    /// Level in dBov (0 or below).
    public var dBov: Int { -Int(level) }

    /// Element data size.
    public static let serializedSize = 1

    /// The element data byte.
    public var byte: UInt8 { (voiceActivity ? 0x80 : 0) | level & 0x7F }

    public var serialized: [UInt8] { [byte] }

    public func serialize(into writer: inout ByteWriter) { writer.writeUInt8(byte) }
}
