import Foundation
import ParleyCore
import ParleyStore
import ServerMedia

/// After a crash: rooms a previous process left in progress are settled when the server starts,
/// before it accepts a connection, as the voice engine settles its calls. No process holds them
/// any more (their media and signaling went with it), and an in-progress record would keep its
/// unique name taken for good. Each is completed, its connected participants disconnected, at
/// the server's last heartbeat (never before the row's last update, never after now); the
/// `room-ended` callback it owes is sent, numbered after what the settled records imply.
extension RoomService {
    /// Settles every in-progress room in the store; returns how many. `lastAlive`: the last
    /// heartbeat the store recorded (seconds since the epoch), if any.
    package nonisolated func settleUnfinishedRooms(lastAlive: Int64?) -> Int {
        let records: [RoomRecord]
        do { records = try store.unfinishedRooms() } catch {
            Log.error(.platform, "cannot read unfinished rooms: \(error)")
            return 0
        }
        let now = configuration.wallClock()
        var settled = 0
        for record in records {
            let end = min(now, max(record.updatedAt, lastAlive ?? record.updatedAt))
            let everyone = (try? store.participants(roomSid: record.sid, status: nil)) ?? []
            for var participant in everyone where participant.status == .connected {
                participant.status = .disconnected
                participant.endTime = max(participant.startTime, end)
                participant.duration = (participant.endTime ?? end) - participant.startTime
                participant.updatedAt = now
                do { try store.updateParticipant(participant) } catch {
                    Log.error(.platform, "participant \(participant.sid): cannot settle: \(error)")
                }
            }
            var final = record
            final.status = .completed
            final.endTime = end
            final.duration = max(0, end - record.createdAt)
            final.updatedAt = now
            do {
                try store.updateRoom(final)  // final first: a second crash cannot send the callback twice
            } catch {
                Log.error(.platform, "room \(record.sid): cannot settle: \(error)")
                continue
            }
            settled += 1
            // room-created and each participant's connect and disconnect came before (at least).
            let sequence = 1 + 2 * everyone.count
            sendCallback(RoomCallbacks.room(final, event: "room-ended", sequence: sequence, now: now), for: final)
        }
        if settled > 0 { Log.warning(.platform, "settled \(settled) room(s) the previous server process left in progress") }
        return settled
    }

    /// Finishes the recordings a previous process left `processing` (after a crash: its files
    /// were written as the packets came, so what reached the disk plays): each file is remuxed
    /// into Matroska and the recording completed with the duration ffprobe reads, or failed when
    /// nothing usable is left. No callbacks: the room that owed them ended with the process.
    package nonisolated func settleUnfinishedRecordings() {
        let records: [RoomRecordingRecord]
        do { records = try store.unfinishedRoomRecordings() } catch {
            Log.error(.platform, "cannot read unfinished recordings: \(error)")
            return
        }
        guard !records.isEmpty else { return }
        Log.warning(.platform, "finishing \(records.count) recording(s) the previous server process left")
        Task {
            for record in records { await settle(record) }
        }
    }

    private nonisolated func settle(_ record: RoomRecordingRecord) async {
        var done = record
        done.status = .failed
        let output = Self.matroskaPath(record.filePath, container: record.container)
        if let size = try? await remux(record.filePath, output) {
            unlink(record.filePath)
            done.status = .completed
            done.size = size
            done.filePath = output
            let seconds = await FFmpeg()?.duration(of: output) ?? 0
            done.duration = max(1, Int64(seconds.rounded()))
        }
        done.updatedAt = configuration.wallClock()
        do { try store.updateRoomRecording(done) } catch {
            Log.error(.platform, "recording \(record.sid): cannot settle: \(error)")
        }
    }
}
