/// Keeps the last `maxDistance` encoded frames and wraps each new frame in a RED payload (RFC 2198)
/// that repeats the last `distance` of them, as browsers do for Opus. Used by the SDK's send stream
/// and by the server where it adds redundancy for a leg that negotiated it. Buffers are allocated
/// once; encoding allocates nothing.
///
/// A previous frame is left out when it cannot be carried (§3): more than 1 023 bytes (the 10-bit
/// block length) or 2^14 timestamp ticks or more before the new frame (the 14-bit offset), which
/// happens after a long DTX silence or a pause.
public struct REDEncoder: Sendable {
    /// The most redundant blocks a payload carries (distance 3 covers three consecutive losses).
    public static let maxDistance = 3

    private struct Slot {
        var bytes: [UInt8]
        var length = 0
        var timestamp: UInt32 = 0
        var valid = false
    }

    public let payloadType: UInt8
    /// How many previous frames each payload repeats, 0…`maxDistance` (0: the primary alone).
    /// Changing it keeps the history, so a raised distance repeats frames sent before.
    public var distance: Int {
        didSet { distance = min(max(distance, 0), Self.maxDistance) }
    }
    private var slots: [Slot]
    /// Index of the most recent frame in `slots`.
    private var newest = 0

    public init(payloadType: UInt8, distance: Int) {
        self.payloadType = payloadType
        self.distance = min(max(distance, 0), Self.maxDistance)
        slots = Array(repeating: Slot(bytes: [UInt8](repeating: 0, count: REDPayloadBuilder.maxBlockLength)),
                      count: Self.maxDistance)
    }

    /// Largest RED payload for a primary of `primaryCapacity` bytes.
    public static func capacity(primaryCapacity: Int, distance: Int = maxDistance) -> Int {
        1 + primaryCapacity + distance * (4 + REDPayloadBuilder.maxBlockLength)
    }

    /// Forgets the history (after a pause, nothing old is repeated).
    public mutating func reset() {
        for i in slots.indices { slots[i].valid = false }
    }

    /// Writes the RED payload for `primary` (timestamp `timestamp`, block PT `blockPayloadType`) into
    /// `output`, oldest redundant block first, then remembers `primary`. Returns the payload length and
    /// the number of redundant blocks, or nil when `output` is too small.
    public mutating func encode(primary: UnsafeRawBufferPointer, timestamp: UInt32, blockPayloadType: UInt8,
                                into output: UnsafeMutableRawBufferPointer) -> (length: Int, redundant: Int)? {
        var count = 0
        for age in stride(from: distance, through: 1, by: -1) where usable(age: age, timestamp: timestamp) { count += 1 }
        var result: (length: Int, redundant: Int)?
        do throws(REDError) {
            var builder = try REDPayloadBuilder(into: output, redundantCount: count)
            var failed = false
            for age in stride(from: distance, through: 1, by: -1) where usable(age: age, timestamp: timestamp) {
                let slot = slots[index(age: age)]
                // The stdlib's buffer closures rethrow untyped errors: report failure as a flag.
                slot.bytes.withUnsafeBytes { raw in
                    do throws(REDError) {
                        try builder.appendRedundant(payloadType: blockPayloadType,
                                                    timestampOffset: timestamp &- slot.timestamp,
                                                    data: UnsafeRawBufferPointer(rebasing: raw[0..<slot.length]))
                    } catch {
                        failed = true
                    }
                }
            }
            if !failed {
                let length = try builder.finish(primaryPayloadType: blockPayloadType, primary: primary)
                result = (length, count)
            }
        } catch {
            result = nil
        }
        remember(primary, timestamp: timestamp)
        return result
    }

    /// Remembers a frame sent without RED (distance 0, or another path), so a later raise of the
    /// distance can repeat it.
    public mutating func remember(_ frame: UnsafeRawBufferPointer, timestamp: UInt32) {
        newest = (newest + 1) % Self.maxDistance
        let fits = frame.count <= REDPayloadBuilder.maxBlockLength
        slots[newest].valid = fits
        slots[newest].timestamp = timestamp
        slots[newest].length = fits ? frame.count : 0
        if fits, let source = frame.baseAddress {
            slots[newest].bytes.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: source, byteCount: frame.count) }
        }
    }

    /// The slot holding the frame `age` frames back (1 = the newest).
    private func index(age: Int) -> Int { (newest - (age - 1) + Self.maxDistance) % Self.maxDistance }

    private func usable(age: Int, timestamp: UInt32) -> Bool {
        let slot = slots[index(age: age)]
        let offset = timestamp &- slot.timestamp
        return slot.valid && slot.length > 0 && offset > 0 && offset <= REDPayloadBuilder.maxTimestampOffset
    }
}
