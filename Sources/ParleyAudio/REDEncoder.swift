import RTP

/// Keeps the last `distance` encoded frames and wraps each new frame in a RED payload (RFC 2198)
/// that repeats them, as browsers do for Opus. Buffers are allocated once.
///
/// A previous frame is left out when it cannot be carried (§3): more than 1 023 bytes (the 10-bit
/// block length) or 2^14 timestamp ticks or more before the new frame (the 14-bit offset), which
/// happens after a long DTX silence.
struct REDEncoder {
    private struct Slot {
        var bytes: [UInt8]
        var length = 0
        var timestamp: UInt32 = 0
        var valid = false
    }

    let payloadType: UInt8
    let distance: Int
    private var slots: [Slot]
    /// Index of the most recent frame in `slots`.
    private var newest = 0

    init(payloadType: UInt8, distance: Int) {
        self.payloadType = payloadType
        self.distance = min(max(distance, 1), 2)
        slots = Array(repeating: Slot(bytes: [UInt8](repeating: 0, count: REDPayloadBuilder.maxBlockLength)),
                      count: self.distance)
    }

    /// Largest RED payload for a primary of `primaryCapacity` bytes.
    static func capacity(primaryCapacity: Int, distance: Int) -> Int {
        1 + primaryCapacity + distance * (4 + REDPayloadBuilder.maxBlockLength)
    }

    /// Forgets the history (after a pause, nothing old is repeated).
    mutating func reset() {
        for i in slots.indices { slots[i].valid = false }
    }

    /// Writes the RED payload for `primary` (timestamp `timestamp`, block PT `blockPayloadType`) into
    /// `output`, oldest redundant block first, then remembers `primary`. Returns the payload length and
    /// the number of redundant blocks, or nil when `output` is too small.
    mutating func encode(primary: UnsafeBufferPointer<UInt8>, timestamp: UInt32, blockPayloadType: UInt8,
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
                let length = try builder.finish(primaryPayloadType: blockPayloadType, primary: UnsafeRawBufferPointer(primary))
                result = (length, count)
            }
        } catch {
            result = nil
        }
        remember(primary, timestamp: timestamp)
        return result
    }

    /// The slot holding the frame `age` frames back (1 = the newest).
    private func index(age: Int) -> Int { (newest - (age - 1) + distance) % distance }

    private func usable(age: Int, timestamp: UInt32) -> Bool {
        let slot = slots[index(age: age)]
        let offset = timestamp &- slot.timestamp
        return slot.valid && slot.length > 0 && offset > 0 && offset <= REDPayloadBuilder.maxTimestampOffset
    }

    private mutating func remember(_ frame: UnsafeBufferPointer<UInt8>, timestamp: UInt32) {
        newest = (newest + 1) % distance
        let fits = frame.count <= REDPayloadBuilder.maxBlockLength
        slots[newest].valid = fits
        slots[newest].timestamp = timestamp
        slots[newest].length = fits ? frame.count : 0
        if fits {
            slots[newest].bytes.withUnsafeMutableBufferPointer { dst in
                for i in 0..<frame.count { dst[i] = frame[i] }
            }
        }
    }
}
