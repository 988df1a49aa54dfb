import RTP

/// The header a forwarded or played packet leaves with: what `RTPForwardingTrack` decided.
public struct RTPHeaderUpdate: Sendable, Hashable {
    public var ssrc: UInt32
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var payloadType: UInt8
    public var marker: Bool
    /// What becomes of the payload on the way (RED added, kept or taken off, RFC 2198).
    public var payload: RTPPayloadRewrite

    public init(ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32, payloadType: UInt8, marker: Bool,
                payload: RTPPayloadRewrite = .unchanged) {
        self.ssrc = ssrc
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.payloadType = payloadType
        self.marker = marker
        self.payload = payload
    }

    /// Rewrites a packet's header in place with these values.
    public func apply(to rewriter: RTPHeaderRewriter) {
        rewriter.ssrc = ssrc
        rewriter.sequenceNumber = sequenceNumber
        rewriter.timestamp = timestamp
        rewriter.payloadType = payloadType
        rewriter.marker = marker
    }

    /// Writes a fresh 12-byte header with these values at `base`.
    public func write(to base: UnsafeMutableRawPointer) {
        RTPFixedHeader.write(to: base, payloadType: payloadType, marker: marker, sequenceNumber: sequenceNumber,
                             timestamp: timestamp, ssrc: ssrc)
    }
}

/// How a forwarded or played payload leaves, when one leg negotiated RED (RFC 2198) and the other
/// did not, or both did.
public enum RTPPayloadRewrite: Sendable, Hashable {
    /// As it came (or as it was played).
    case unchanged
    /// A RED payload kept whole, its block payload types renamed to the receiver's codec's.
    case renameREDBlocks(UInt8)
    /// A RED payload reduced to its primary block: the receiver did not negotiate RED.
    case redPrimaryOnly
    /// A plain frame wrapped in RED by the track's encoder, which repeats the frames before it.
    case wrapInRED
}

/// One outgoing track of a forwarding endpoint — a selective forwarding unit's down-track
/// (RFC 7667 §3.7), a two-party call's leg, an echo — as a pure value: the SSRC and payload types
/// the receiver negotiated, and the `RTPMunger` that keeps the numbering continuous whatever feeds
/// the track. For each packet of the current source it decides whether it goes out and with which
/// header; switching the source is `sourceChanged()`. An SFU extends it with layer selection
/// (simulcast, SVC) and keyframe requests on a switch.
public struct RTPForwardingTrack: Sendable {
    /// Why a source packet is not forwarded.
    public enum DropReason: Sendable, Hashable {
        /// A telephone event, but the receiver negotiated no `telephone-event`.
        case noTelephoneEvent
        /// A payload of another kind than the track's (video into an audio track, …).
        case wrongKind
    }

    public enum Decision: Sendable, Hashable {
        case send(RTPHeaderUpdate)
        case drop(DropReason)
    }

    /// The SSRC the receiver sees (ours).
    public let ssrc: UInt32
    /// `.audio` or `.video`: what the track carries.
    public let kind: RTPPayloadFormat.Kind
    /// The receiver's payload type for the media, and for RFC 4733 events (nil: not negotiated).
    public var mediaPayloadType: UInt8
    public var telephoneEventPayloadType: UInt8?
    /// The receiver's RED payload type, when it negotiated `red/48000/2` around the codec.
    public private(set) var redPayloadType: UInt8?
    /// The frames a wrapped payload repeats, and how many (the receiver's loss reports decide).
    public var red: REDEncoder?
    public private(set) var redDistance = REDDistanceController()
    public private(set) var munger: RTPMunger

    /// - Parameters: `initialSequence` and `initialTimestamp` are random in real use (RFC 3550 §5.1).
    public init(ssrc: UInt32, kind: RTPPayloadFormat.Kind, clockRate: UInt32, mediaPayloadType: UInt8,
                telephoneEventPayloadType: UInt8? = nil, initialSequence: UInt16, initialTimestamp: UInt32) {
        self.ssrc = ssrc
        self.kind = kind
        self.mediaPayloadType = mediaPayloadType
        self.telephoneEventPayloadType = telephoneEventPayloadType
        munger = RTPMunger(clockRate: clockRate, initialSequence: initialSequence, initialTimestamp: initialTimestamp)
    }

    /// The receiver negotiated RED on `payloadType` (nil: it did not, or no longer does).
    public mutating func setREDPayloadType(_ payloadType: UInt8?) {
        guard payloadType != redPayloadType else { return }
        redPayloadType = payloadType
        red = payloadType.map { REDEncoder(payloadType: $0, distance: redDistance.distance) }
    }

    /// The receiver's RTCP fraction lost on this track (RFC 3550 §6.4.1): sets the RED distance.
    public mutating func reportRemoteLoss(fractionLost: UInt8) {
        guard redDistance.reportRemoteLoss(fractionLost: fractionLost) else { return }
        red?.distance = redDistance.distance
    }

    /// Whether plain frames are wrapped in RED now: negotiated, and the loss calls for redundancy.
    public var wrapsInRED: Bool { redPayloadType != nil && (red?.distance ?? 0) > 0 }

    /// The source changed (or stopped): its next packet resynchronises the stream.
    public mutating func sourceChanged() {
        munger.sourceChanged()
    }

    /// The header for one packet of the source (its SSRC, sequence number, timestamp and marker),
    /// whose payload is of `kind` by the source's negotiation, or why it is dropped.
    ///
    /// The marker bit carries over, except that an audio packet that resynchronises the stream gets
    /// it (a talkspurt starts, RFC 3551 §4.1). Telephone events keep theirs (RFC 4733 §2.5.1.3:
    /// it marks an event's start) and video its own (end of frame, e.g. RFC 7741 §4.1).
    public mutating func forward(ssrc source: UInt32, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool,
                                 kind payloadKind: RTPPayloadFormat.Kind, now: Double) -> Decision {
        let payloadType: UInt8
        var payload = RTPPayloadRewrite.unchanged
        switch (kind, payloadKind) {
        case (.audio, .telephoneEvent):
            guard let event = telephoneEventPayloadType else { return .drop(.noTelephoneEvent) }
            payloadType = event
        case (.audio, .redundantAudio):
            if let red = redPayloadType {
                payloadType = red
                payload = .renameREDBlocks(mediaPayloadType)
            } else {
                payloadType = mediaPayloadType
                payload = .redPrimaryOnly
            }
        case (.audio, .audio):
            payloadType = wrapsInRED ? redPayloadType! : mediaPayloadType
            if wrapsInRED { payload = .wrapInRED }
        case (.video, .video):
            payloadType = mediaPayloadType
        default:
            return .drop(.wrongKind)
        }
        let position = munger.forwarded(ssrc: source, sequence: sequenceNumber, timestamp: timestamp, now: now)
        let setsMarker = position.resynchronised && payloadKind != .telephoneEvent && kind == .audio
        return .send(RTPHeaderUpdate(ssrc: ssrc, sequenceNumber: position.sequenceNumber, timestamp: position.timestamp,
                                     payloadType: payloadType, marker: marker || setsMarker, payload: payload))
    }

    /// The header for a frame the endpoint itself plays on the track (covering `samples`).
    public mutating func play(samples: UInt32, now: Double) -> RTPHeaderUpdate {
        let position = munger.played(samples: samples, now: now)
        return RTPHeaderUpdate(ssrc: ssrc, sequenceNumber: position.sequenceNumber, timestamp: position.timestamp,
                               payloadType: wrapsInRED ? redPayloadType! : mediaPayloadType, marker: position.resynchronised,
                               payload: wrapsInRED ? .wrapInRED : .unchanged)
    }
}
