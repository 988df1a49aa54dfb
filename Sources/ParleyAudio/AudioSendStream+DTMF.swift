import AudioCore
import RTP

extension AudioSendStream {
    /// Queues digits to send: `0`–`9`, `*`, `#`, and `w` for a 500 ms pause. Each key is a 100 ms
    /// telephone event (RFC 4733 §2.5) followed by a 70 ms gap, or the same as in-band tones when no
    /// telephone-event payload type was negotiated. Any other character is refused, naming it and
    /// its position, and nothing of the string is queued.
    public func sendDigits(_ digits: String) throws(DTMFDialStringError) {
        let dialString = try DTMFDialString(digits)
        if telephoneEvents != nil {
            telephoneEvents?.enqueue(dialString)
        } else {
            inBandTones?.enqueue(dialString)
        }
    }

    /// Whether digits are still being sent.
    public var isSendingDigits: Bool { (telephoneEvents?.isActive ?? false) || (inBandTones?.isActive ?? false) }

    /// At a frame tick: emits the telephone-event packet due now instead of the audio frame and
    /// returns true, or returns false when audio goes out (RFC 4733 §2.5.1: the event shares the
    /// stream's SSRC, clock and sequence numbers).
    func sendTelephoneEvent(timestamp: UInt32, emit: (AudioSendPacket) -> Void) -> Bool {
        guard let payloadType = configuration.telephoneEventPayloadType else { return false }
        // The sender's clock is the stream's own: frames encoded × frame length.
        let now = Int64(framesEncoded) * Int64(configuration.frameMilliseconds) * 1_000
        guard case .event(let event) = telephoneEvents?.tick(at: now, rtpTimestamp: timestamp) else { return false }
        eventPayload.withUnsafeMutableBytes { raw in
            guard let length = try? event.serializePayload(into: raw), let base = raw.baseAddress else { return }
            let payload = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: length)
            send(AudioSendPacket(payloadType: payloadType, timestamp: event.timestamp, marker: event.marker,
                                 payload: payload, redundantBlocks: 0), emit: emit)
        }
        return true
    }
}
