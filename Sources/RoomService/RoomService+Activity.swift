import ParleyCore
import ParleyStore
import PlatformCore
import SFU
import Signaling

/// Who speaks and how each participant's network fares, for the participants that asked in
/// `room.join` (docs/signaling.md §12): each room's `DominantSpeakerDetector` is fed the RFC 6464
/// levels of its participants' published audio tracks and re-decided on each level;
/// `room.dominantSpeaker` goes out when the floor changes (and `null` when the speaker leaves
/// and nobody else speaks). Each session's once-a-second path figures make its
/// `NetworkQualityLevel`; `room.networkQuality` carries the levels that changed since the last
/// one that participant was sent, at most once a second.
extension RoomService {
    /// The least time between two `room.networkQuality` to one participant.
    static let networkQualityInterval: Duration = .seconds(1)

    /// The `room.networkQuality` a participant asked for and what it was sent.
    struct QualityReports {
        var wanted = false
        /// The levels it was last sent, by participant SID.
        var sent: [String: Int] = [:]
        var sentAt: MonotonicInstant?
        /// A send is due at `sentAt` + the interval.
        var pending = false
    }

    /// Milliseconds of the service's clock, the detector's time.
    private var speakerTime: Int64 { configuration.clock.now.nanoseconds / 1_000_000 }

    /// A participant joined with media (its `room.joined` posted): it is told who speaks and the
    /// levels known so far, if it asked.
    func joinedActivity(_ participantSid: String) {
        guard let live = participants[participantSid] else { return }
        if live.wantsDominantSpeaker, let speaker = rooms[live.record.roomSid]?.speakers.dominant {
            live.post(.roomDominantSpeaker(RoomDominantSpeaker(participantSid: speaker)))
        }
        reportQuality(to: participantSid)
    }

    /// A level of a session's sending section: counted when it carries a published audio track
    /// (a disabled one as silence).
    func audioLevel(_ level: UInt8, session: String, mid: String) {
        guard let sid = sessionOwners[session], let roomSid = participants[sid]?.record.roomSid,
              let track = tracks.values.first(where: { $0.record.participantSid == sid && $0.mid == mid }),
              track.record.kind == .audio, var room = rooms[roomSid] else { return }
        let time = speakerTime
        room.speakers.level(track.record.enabled ? level : 127, of: sid, at: time)
        let previous = room.speakers.dominant
        let change = room.speakers.evaluate(at: time)
        rooms[roomSid] = room
        if case .some(let speaker) = change {
            announceSpeaker(speaker, roomSid: roomSid)
            speakerChanged(from: previous, to: speaker, roomSid: roomSid)
        }
    }

    /// A session's path figures: its participant's level, reported to those that asked when it
    /// changed.
    func networkQuality(_ quality: RoomMediaQuality, session: String) {
        guard let sid = sessionOwners[session], let live = participants[sid] else { return }
        // The bandwidth part counts once the downlink showed a limit (an unlimited budget is no limit).
        let level = NetworkQualityLevel.level(rttMilliseconds: quality.roundTripTime?.milliseconds,
                                              jitterMilliseconds: quality.jitter * 1000,
                                              lossPercent: max(quality.uplinkLoss, quality.downlinkLoss) * 100,
                                              availableBitrate: quality.downlinkBitrateEstimate,
                                              neededBitrate: quality.downlinkBitrateEstimate == nil ? nil : quality.downlinkBitrateWanted)
        guard live.networkLevel != level else { return }
        participants[sid]?.networkLevel = level
        for other in participants.values where other.record.roomSid == live.record.roomSid && other.qualityReports.wanted {
            reportQuality(to: other.record.sid)
        }
    }

    /// A participant left: it no longer competes for the floor; when it held it, the floor goes
    /// to whoever speaks now, or nobody.
    func activityGone(of record: ParticipantRecord) {
        for sid in participants.keys { participants[sid]?.qualityReports.sent[record.sid] = nil }
        guard var room = rooms[record.roomSid] else { return }
        let held = room.speakers.dominant == record.sid
        room.speakers.remove(record.sid)
        let next = held ? room.speakers.evaluate(at: speakerTime) : nil
        rooms[record.roomSid] = room
        if held {
            announceSpeaker(next ?? nil, roomSid: record.roomSid)
            speakerChanged(from: nil, to: next ?? nil, roomSid: record.roomSid)
        }
    }

    private func announceSpeaker(_ speaker: String?, roomSid: String) {
        let message = SignalingMessage.roomDominantSpeaker(RoomDominantSpeaker(participantSid: speaker))
        for live in participants.values where live.record.roomSid == roomSid && live.wantsDominantSpeaker {
            live.post(message)
        }
    }

    /// Sends the participant the levels that changed since its last `room.networkQuality` (its
    /// own first, then the others' in join order), or arms a send for when the interval is over.
    private func reportQuality(to participantSid: String) {
        guard let live = participants[participantSid], live.qualityReports.wanted, !live.qualityReports.pending else { return }
        let clock = configuration.clock
        if let last = live.qualityReports.sentAt, clock.now < last.advanced(by: Self.networkQualityInterval) {
            participants[participantSid]?.qualityReports.pending = true
            let deadline = last.advanced(by: Self.networkQualityInterval)
            Task { [weak self] in
                try? await clock.sleep(until: deadline)
                await self?.qualityReportDue(participantSid)
            }
            return
        }
        let others = participants.values.filter { $0.record.roomSid == live.record.roomSid && $0.record.sid != participantSid }
            .sorted { $0.order < $1.order }
        let changed = ([live] + others).compactMap { participant -> RoomNetworkQualityLevel? in
            guard let level = participant.networkLevel, live.qualityReports.sent[participant.record.sid] != level else { return nil }
            return RoomNetworkQualityLevel(participantSid: participant.record.sid, level: level)
        }.prefix(RoomProtocol.maxLevels)
        guard !changed.isEmpty else { return }
        for level in changed { participants[participantSid]?.qualityReports.sent[level.participantSid] = level.level }
        participants[participantSid]?.qualityReports.sentAt = clock.now
        live.post(.roomNetworkQuality(RoomNetworkQuality(levels: Array(changed))))
    }

    private func qualityReportDue(_ participantSid: String) {
        participants[participantSid]?.qualityReports.pending = false
        reportQuality(to: participantSid)
    }
}
