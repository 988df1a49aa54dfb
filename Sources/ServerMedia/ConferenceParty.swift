import ParleyAudio
import ParleyCore
import Synchronization

/// The received audio of one conference participant on its way to the mixer: the transport's tap
/// stores packets here (on the tap's own task), the mixer takes one per tick (on the clock's
/// thread). Only the queue is shared, behind its own lock, so a tap never waits for a whole mix.
package final class ConferenceInput: Sendable {
    private let queue = Mutex(ConferenceJitterQueue())

    package init() {}

    /// Stores one received audio payload (telephone events must be filtered out before).
    package func receive(_ payload: [UInt8], sequenceNumber: UInt16) {
        payload.withUnsafeBufferPointer { bytes in
            queue.withLock { $0.insert(bytes, sequenceNumber: sequenceNumber) }
        }
    }

    func take(into buffer: UnsafeMutableBufferPointer<UInt8>) -> ConferenceJitterQueue.Take {
        queue.withLock { $0.take(into: buffer) }
    }

    func clear() {
        queue.withLock { $0.clear() }
    }

    /// Packets received and dropped (late, duplicate, or over the latency bound) so far.
    package var counts: (received: Int, dropped: Int) {
        queue.withLock { ($0.received, $0.dropped) }
    }
}

/// One participant inside the mixer: its decoder and encoder and every buffer a tick needs,
/// allocated when it joins. Lives inside the mixer's lock; never shared across threads.
final class ConferenceParty {
    /// Decoder concealment covers at most this many frames of a gap (100 ms), then silence.
    static let maximumConcealedFrames = 5

    let session: String
    let codec: CallAudioCodec
    let input: ConferenceInput
    /// Heard by nobody (TwiML `muted`); it still hears the room.
    var isMuted: Bool
    /// In the mix: false while the conference waits for a participant with startConferenceOnEnter
    /// (then it hears hold music from the player and nobody hears it).
    var isActive: Bool
    /// This tick's decoded (or concealed) 20 ms at 48 kHz, valid when `hasAudio`.
    private(set) var pcm: [Int16]
    private(set) var hasAudio = false
    /// Own encoder (one stream state per receiver: Opus frames depend on the previous ones);
    /// none for a party that hears nothing.
    let encoder: FrameEncoder?
    private let decoder: any AudioDecoder
    /// 8 → 48 kHz for G.711 participants.
    private let upsampler: Resampler?
    private var packet: [UInt8]
    /// Room for the longest Opus packet (120 ms at 48 kHz).
    private var decoded: [Int16]
    private var narrow: [Int16]
    private var concealedRun = Int.max
    private(set) var framesDecoded = 0
    private(set) var framesConcealed = 0

    init(session: String, codec: CallAudioCodec, input: ConferenceInput, muted: Bool, active: Bool, hears: Bool = true,
         configuration: CallMediaPlayer.Configuration) throws(MediaError) {
        self.session = session
        self.codec = codec
        self.input = input
        isMuted = muted
        isActive = active
        do {
            encoder = hears ? try FrameEncoder(codec: codec, configuration: configuration) : nil
            switch codec {
            case .opus:
                decoder = try OpusAudioDecoder(sampleRate: MediaAudio.sampleRate, channels: 1)
                upsampler = nil
            case .pcmu, .pcma:
                decoder = try G711AudioDecoder(kind: codec.kind)
                upsampler = try Resampler(inputRate: 8_000, outputRate: MediaAudio.sampleRate, channels: 1, quality: 3)
            }
        } catch {
            throw MediaError(.internalFailure, "\(codec.rawValue) codec for the conference: \(error)")
        }
        pcm = [Int16](repeating: 0, count: MediaAudio.frameSamples)
        packet = [UInt8](repeating: 0, count: ConferenceJitterQueue.maximumPayload)
        decoded = [Int16](repeating: 0, count: MediaAudio.sampleRate * 120 / 1000)
        narrow = [Int16](repeating: 0, count: 8_000 * 120 / 1000)
    }

    /// Takes this tick's packet and decodes it into `pcm` (a lost or late one is concealed for up
    /// to 100 ms). Returns whether `pcm` holds audio.
    @discardableResult
    func pull() -> Bool {
        let take = packet.withUnsafeMutableBufferPointer { input.take(into: $0) }
        switch take {
        case .packet(let count):
            if decode(count) {
                concealedRun = 0
                framesDecoded += 1
                hasAudio = true
            } else {
                hasAudio = conceal()
            }
        case .lost:
            hasAudio = conceal()
        case .empty:
            hasAudio = concealedRun < Self.maximumConcealedFrames ? conceal() : false
        }
        return hasAudio
    }

    /// Drops what waits in the input (a participant that is not in the mix).
    func discardInput() {
        input.clear()
        hasAudio = false
        concealedRun = Int.max
    }

    private func decode(_ count: Int) -> Bool {
        let produced = packet.withUnsafeBufferPointer { bytes -> Int in
            let payload = UnsafeBufferPointer(rebasing: bytes[0..<count])
            if upsampler == nil {
                return decoded.withUnsafeMutableBufferPointer { (try? decoder.decode(payload, into: $0)) ?? 0 }
            }
            let n = narrow.withUnsafeMutableBufferPointer { (try? decoder.decode(payload, into: $0)) ?? 0 }
            return upsample(n)
        }
        guard produced > 0 else { return false }
        copyFrame(produced)
        return true
    }

    /// The decoder's concealment for one frame; false once the gap is longer than it covers.
    private func conceal() -> Bool {
        guard concealedRun < Self.maximumConcealedFrames else { return false }
        concealedRun += 1
        framesConcealed += 1
        let produced: Int
        if upsampler == nil {
            produced = decoded.withUnsafeMutableBufferPointer { decoder.conceal(samplesPerChannel: MediaAudio.frameSamples, into: $0) }
        } else {
            let n = narrow.withUnsafeMutableBufferPointer { decoder.conceal(samplesPerChannel: codec.samplesPerFrame, into: $0) }
            produced = upsample(n)
        }
        guard produced > 0 else { return false }
        copyFrame(produced)
        return true
    }

    /// Upsamples `count` samples of `narrow` into `decoded`; returns the samples made.
    private func upsample(_ count: Int) -> Int {
        guard let upsampler, count > 0 else { return 0 }
        return narrow.withUnsafeBufferPointer { input in
            decoded.withUnsafeMutableBufferPointer { upsampler.process(UnsafeBufferPointer(rebasing: input[0..<count]), into: $0).produced }
        }
    }

    /// The first 20 ms of `decoded` into `pcm`, padded with silence. (Clients send 20 ms frames; a
    /// longer packet keeps only its first 20 ms.)
    private func copyFrame(_ produced: Int) {
        let n = min(produced, MediaAudio.frameSamples)
        decoded.withUnsafeBufferPointer { source in
            pcm.withUnsafeMutableBufferPointer { target in
                _ = UnsafeMutableBufferPointer(rebasing: target[0..<n]).update(fromContentsOf: UnsafeBufferPointer(rebasing: source[0..<n]))
                if n < target.count { UnsafeMutableBufferPointer(rebasing: target[n...]).update(repeating: 0) }
            }
        }
    }
}
