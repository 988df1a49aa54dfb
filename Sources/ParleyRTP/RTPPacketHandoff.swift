import Synchronization

/// A bounded hand-off of RTP packets from one event loop to another: a single-producer,
/// single-consumer ring of fixed slots, allocated once. The producer (the source leg's loop, after
/// SRTP is removed) copies a packet's header fields and payload into the next free slot; the
/// consumer (the sink leg's loop) reads them in order and sends each on the sink's own stream
/// (`RTPForwardingTrack`), so the source's gaps stay gaps (RFC 3550 §5.1). A full ring or an
/// oversized payload drops the packet (counted), never blocks and never grows.
///
/// The producer wakes the consumer through `wake` when the ring goes from idle to busy; the
/// consumer clears that before draining, so a packet pushed during a drain wakes it again.
public final class RTPPacketHandoff: @unchecked Sendable {
    /// One waiting packet, read in place (valid only inside `drain`'s body).
    public struct Packet {
        public var ssrc: UInt32
        public var sequenceNumber: UInt16
        public var timestamp: UInt32
        public var marker: Bool
        public var kind: RTPPayloadFormat.Kind
        public var payload: UnsafeRawBufferPointer
    }

    public let capacity: Int
    public let maxPayloadBytes: Int
    private let slotBytes: Int
    private let storage: UnsafeMutableRawPointer
    private let kinds: UnsafeMutablePointer<RTPPayloadFormat.Kind>
    /// Written by the producer only (next slot to fill) and the consumer only (next to read).
    private let tail = Atomic<Int>(0)
    private let head = Atomic<Int>(0)
    private let scheduled = Atomic<Bool>(false)
    private let closed = Atomic<Bool>(false)
    private let pushedCount = Atomic<Int>(0)
    private let droppedCount = Atomic<Int>(0)
    /// Set once, at init.
    private var wake: (@Sendable () -> Void)?

    /// Header fields stored ahead of each slot's payload.
    private static let fieldBytes = 16

    /// - Parameters: `capacity` packets wait at most; a payload over `maxPayloadBytes` is dropped.
    ///   When packets start waiting, the producer's thread calls `schedule` with a closure made
    ///   once (so waking allocates nothing), which must run it on the consumer's loop
    ///   (`EventLoop.execute`); that closure calls `drain` with this hand-off.
    public convenience init(capacity: Int = 32, maxPayloadBytes: Int = 1280,
                            schedule: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void,
                            drain: @escaping @Sendable (RTPPacketHandoff) -> Void) {
        self.init(capacity: capacity, maxPayloadBytes: maxPayloadBytes)
        let task: @Sendable () -> Void = { [weak self] in if let self { drain(self) } }
        wake = { schedule(task) }
    }

    /// - Parameters: `capacity` packets wait at most; a payload over `maxPayloadBytes` is dropped.
    public init(capacity: Int = 32, maxPayloadBytes: Int = 1280) {
        self.capacity = max(2, capacity)
        self.maxPayloadBytes = maxPayloadBytes
        slotBytes = Self.fieldBytes + maxPayloadBytes
        storage = .allocate(byteCount: self.capacity * slotBytes, alignment: 8)
        kinds = .allocate(capacity: self.capacity)
        kinds.initialize(repeating: .audio, count: self.capacity)
    }


    deinit {
        storage.deallocate()
        kinds.deinitialize(count: capacity)
        kinds.deallocate()
    }

    /// Packets handed over, and packets dropped (ring full, payload too large, or closed).
    public var pushed: Int { pushedCount.load(ordering: .relaxed) }
    public var dropped: Int { droppedCount.load(ordering: .relaxed) }

    /// Stops the hand-off: later pushes are dropped and `drain` reads nothing more.
    public func close() { closed.store(true, ordering: .releasing) }
    public var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Producer only: copies one packet in. False (and counted) when it is dropped.
    @discardableResult
    public func push(ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, kind: RTPPayloadFormat.Kind,
                     payload: UnsafeRawBufferPointer) -> Bool {
        let t = tail.load(ordering: .relaxed)
        guard !isClosed, payload.count <= maxPayloadBytes, t - head.load(ordering: .acquiring) < capacity else {
            droppedCount.add(1, ordering: .relaxed)
            return false
        }
        let index = t % capacity
        let slot = storage + index * slotBytes
        slot.storeBytes(of: ssrc, toByteOffset: 0, as: UInt32.self)
        slot.storeBytes(of: timestamp, toByteOffset: 4, as: UInt32.self)
        slot.storeBytes(of: sequenceNumber, toByteOffset: 8, as: UInt16.self)
        slot.storeBytes(of: UInt16(payload.count), toByteOffset: 10, as: UInt16.self)
        slot.storeBytes(of: marker ? 1 : 0, toByteOffset: 12, as: UInt8.self)
        kinds[index] = kind
        if let bytes = payload.baseAddress, !payload.isEmpty {
            (slot + Self.fieldBytes).copyMemory(from: bytes, byteCount: payload.count)
        }
        tail.store(t + 1, ordering: .releasing)
        pushedCount.add(1, ordering: .relaxed)
        if !scheduled.exchange(true, ordering: .acquiringAndReleasing) { wake?() }
        return true
    }

    /// Consumer only: hands each waiting packet to `body`, oldest first. Returns how many.
    @discardableResult
    public func drain(_ body: (Packet) -> Void) -> Int {
        scheduled.store(false, ordering: .sequentiallyConsistent)
        var h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        let count = t - h
        let live = !isClosed
        while h < t {
            let index = h % capacity
            let slot = UnsafeRawPointer(storage + index * slotBytes)
            if live {
                let length = Int(slot.load(fromByteOffset: 10, as: UInt16.self))
                body(Packet(ssrc: slot.load(fromByteOffset: 0, as: UInt32.self),
                            sequenceNumber: slot.load(fromByteOffset: 8, as: UInt16.self),
                            timestamp: slot.load(fromByteOffset: 4, as: UInt32.self),
                            marker: slot.load(fromByteOffset: 12, as: UInt8.self) != 0, kind: kinds[index],
                            payload: UnsafeRawBufferPointer(start: slot + Self.fieldBytes, count: length)))
            }
            h += 1
        }
        head.store(h, ordering: .releasing)
        return count
    }
}
