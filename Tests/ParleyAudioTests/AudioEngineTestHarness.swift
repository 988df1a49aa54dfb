import AudioCore
import AudioDevices
import Foundation
import NetworkConditioner
import ParleyAudio
import ParleyTestSupport
import Synchronization

/// A clock the test moves by hand.
final class VirtualClock: AudioEngineClock {
    private let time = Atomic<Int64>(0)
    func microseconds() -> Int64 { time.load(ordering: .relaxed) }
    func set(_ microseconds: Int64) { time.store(microseconds, ordering: .relaxed) }
}

/// One packet an engine sent, copied out of the engine's buffer.
struct SentPacket: Sendable {
    var payloadType: UInt8
    var sequenceNumber: UInt16
    var timestamp: UInt32
    var ssrc: UInt32
    var marker: Bool
    var payload: [UInt8]
    var isTelephoneEvent: Bool
}

/// Keeps what an engine sends.
final class PacketRecorder: AudioEnginePacketSink {
    private let packets = Mutex<[SentPacket]>([])
    private let pending = Mutex<[SentPacket]>([])

    func send(_ packet: AudioEnginePacket) {
        let copy = SentPacket(payloadType: packet.payloadType, sequenceNumber: packet.sequenceNumber,
                              timestamp: packet.timestamp, ssrc: packet.ssrc, marker: packet.marker,
                              payload: Array(packet.payload), isTelephoneEvent: packet.isTelephoneEvent)
        packets.withLock { $0.append(copy) }
        pending.withLock { $0.append(copy) }
    }

    /// Everything sent so far.
    var all: [SentPacket] { packets.withLock { $0 } }
    var count: Int { packets.withLock { $0.count } }

    /// What was sent since the last call.
    func takePending() -> [SentPacket] { pending.withLock { p in defer { p = [] }; return p } }
}

/// Keeps the DTMF reports of an engine.
final class DigitRecorder: AudioEngineDelegate {
    private let events = Mutex<[DTMFReceiverEvent]>([])
    func audioEngine(_ engine: AudioEngine, didReceive event: DTMFReceiverEvent) { events.withLock { $0.append(event) } }
    var all: [DTMFReceiverEvent] { events.withLock { $0 } }
    var ended: [DTMFDigit] { all.compactMap { if case .ended(let key) = $0 { key.digit } else { nil } } }
    var began: [DTMFDigit] { all.compactMap { if case .began(let key) = $0 { key.digit } else { nil } } }
}

/// A device the test advances one buffer at a time.
protocol ManuallyTicked: AudioDevice { func tick() }
extension FileAudioDevice: ManuallyTicked {}
extension ToneAudioDevice: ManuallyTicked {}

/// Alice's and Bob's engines joined by a simulated network each way, on one virtual clock
/// ticking 10 ms: each tick both devices capture and render one buffer, then what was sent is
/// submitted to the network and what is due is delivered at its arrival time.
final class EngineCall {
    let clock = VirtualClock()
    let alice: AudioEngine
    let bob: AudioEngine
    let aliceDevice: any ManuallyTicked
    let bobDevice: any ManuallyTicked
    let aliceSent = PacketRecorder()
    let bobSent = PacketRecorder()
    let bobDigits = DigitRecorder()
    var toBob: NetworkConditioner<SentPacket>
    var toAlice: NetworkConditioner<SentPacket>
    private(set) var time: Int64 = 0
    static let tick: Int64 = 10_000

    init(aliceDevice: any ManuallyTicked, bobDevice: any ManuallyTicked,
         alice aliceConfiguration: AudioEngineConfiguration, bob bobConfiguration: AudioEngineConfiguration,
         network: NetworkConditions = NetworkConditions(), seed: UInt64 = 7) throws {
        self.aliceDevice = aliceDevice
        self.bobDevice = bobDevice
        alice = try AudioEngine(device: aliceDevice, configuration: aliceConfiguration, packetSink: aliceSent, clock: clock)
        bob = try AudioEngine(device: bobDevice, configuration: bobConfiguration, packetSink: bobSent, clock: clock)
        bob.delegate = bobDigits
        toBob = NetworkConditioner(conditions: network, seed: seed, capacity: 1024)
        toAlice = NetworkConditioner(conditions: network, seed: seed &+ 1, capacity: 1024)
    }

    func start() throws {
        try alice.start()
        try bob.start()
    }

    func stop() {
        alice.stop()
        bob.stop()
    }

    /// Runs `milliseconds` of the call (whole 10 ms ticks).
    func run(milliseconds: Int) {
        for _ in 0..<(milliseconds / 10) {
            clock.set(time)
            aliceDevice.tick()
            bobDevice.tick()
            Self.carry(aliceSent.takePending(), through: &toBob, to: bob, at: time)
            Self.carry(bobSent.takePending(), through: &toAlice, to: alice, at: time)
            time += Self.tick
        }
    }

    private static func carry(_ packets: [SentPacket], through network: inout NetworkConditioner<SentPacket>,
                              to engine: AudioEngine, at now: Int64) {
        for packet in packets { _ = network.submit(packet, length: packet.payload.count + 12, at: now) }
        while let delivery = network.dequeueDue(at: now) {
            let p = delivery.payload
            p.payload.withUnsafeBytes { bytes in
                engine.receive(payloadType: p.payloadType, sequenceNumber: p.sequenceNumber, timestamp: p.timestamp,
                               ssrc: p.ssrc, marker: p.marker, payload: bytes, at: delivery.time)
            }
        }
    }
}

enum EngineAudio {
    static let rate = 48_000

    /// A temporary directory for one test's files.
    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "parley-engine-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `seconds` of a sine at `frequency` and `amplitude` (0…1 of full scale), 48 kHz mono.
    static func tone(frequency: Double, seconds: Double, amplitude: Double = 0.5) -> [Int16] {
        (0..<Int(seconds * Double(rate))).map { n in
            Int16(amplitude * 32_767 * sin(2 * .pi * frequency * Double(n) / Double(rate)))
        }
    }

    /// Writes a 48 kHz mono WAV and returns its path.
    static func writeWAV(_ samples: [Int16], in directory: String, name: String) throws -> String {
        let path = directory + "/" + name
        try Data(WAVFile(sampleRate: rate, channels: 1, samples: samples).serialized).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// RMS of `samples[range]` (in seconds) as a fraction of full scale.
    static func rms(_ samples: [Int16], seconds range: ClosedRange<Double>) -> Double {
        let slice = window(samples, range)
        guard !slice.isEmpty else { return 0 }
        return (slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(slice.count)).squareRoot() / 32_768
    }

    /// The dominant frequency (100…2000 Hz) of `samples[range]`.
    static func dominantFrequency(_ samples: [Int16], seconds range: ClosedRange<Double>) -> Double {
        ToneAudio.dominantFrequency(window(samples, range).map(Double.init))
    }

    /// The first sample whose magnitude reaches `threshold`, in milliseconds.
    static func onsetMilliseconds(_ samples: [Int16], threshold: Int16 = 3_000) -> Double? {
        samples.firstIndex { abs(Int($0)) >= Int(threshold) }.map { Double($0) * 1000 / Double(rate) }
    }

    private static func window(_ samples: [Int16], _ range: ClosedRange<Double>) -> ArraySlice<Int16> {
        let lower = min(Int(range.lowerBound * Double(rate)), samples.count)
        let upper = min(Int(range.upperBound * Double(rate)), samples.count)
        return samples[lower..<upper]
    }
}
