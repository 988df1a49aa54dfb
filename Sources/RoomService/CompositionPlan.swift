import ParleyStore
import ServerMedia
import VideoREST

/// What a composition is made of (Twilio's Compositions), decided from the room's completed
/// recordings: the audio recordings its `AudioSources` name (less `AudioSourcesExcluded`), mixed;
/// for each region of its `VideoLayout`, the video recordings the region names, oldest first
/// (`reuse: show_newest`: newest first), tiled in a grid of the region (`max_columns`,
/// `max_rows` bound it; tracks beyond the cells are left out), each shown from its offset on.
/// With `Trim` the composition spans the first to the last recorded media; without it, the room's
/// whole time. Pure: records in, a `MediaComposition` out.
enum CompositionPlan {
    enum Failure: Error, Equatable {
        case nothingToCompose
        case invalidLayout
    }

    static func make(_ composition: CompositionRecord, room: RoomRecord,
                     recordings: [RoomRecordingRecord]) throws(Failure) -> MediaComposition {
        let usable = recordings.filter { $0.status == .completed && $0.roomSid == room.sid }
            .sorted { ($0.offset, $0.sid) < ($1.offset, $1.sid) }
        func names(_ r: RoomRecordingRecord) -> [String] { [r.trackName, r.sourceSid, r.sid] }
        let audio = usable.filter {
            $0.kind == .audio && SourcePattern.matches(composition.audioSources, names($0))
                && !SourcePattern.matches(composition.audioSourcesExcluded, names($0))
        }
        let size = CompositionCreateRequest(accountSid: "", roomSid: "", resolution: composition.resolution).size
        var placed: [(RoomRecordingRecord, x: Int, y: Int, width: Int, height: Int)] = []
        if !composition.videoLayout.isEmpty {
            guard let layout = VideoLayout.parse(composition.videoLayout) else { throw .invalidLayout }
            for region in layout.regions {
                var chosen = usable.filter {
                    $0.kind == .video && SourcePattern.matches(region.videoSources, names($0))
                        && !SourcePattern.matches(region.videoSourcesExcluded, names($0))
                }
                if region.reuse == "show_newest" { chosen.reverse() }
                placed += grid(chosen, region: region, canvas: size)
            }
        }
        let used = audio + placed.map(\.0)
        guard !used.isEmpty else { throw .nothingToCompose }
        let end = { (r: RoomRecordingRecord) in r.offset + (r.duration ?? 0) * 1000 }
        var start = used.map(\.offset).min() ?? 0
        var finish = used.map(end).max() ?? start
        if !composition.trim {
            start = min(start, room.createdAt * 1000)
            finish = max(finish, (room.endTime ?? room.createdAt) * 1000)
        }
        let seconds = { (ms: Int64) in Double(max(0, ms - start)) / 1000 }
        return MediaComposition(
            width: size.width, height: size.height, duration: max(seconds(finish), 0.1),
            format: composition.format == "mp4" ? .mp4 : .webm,
            video: placed.map { .init(path: $0.0.filePath, start: seconds($0.0.offset), x: $0.x, y: $0.y, width: $0.width,
                                      height: $0.height) },
            audio: audio.map { .init(path: $0.filePath, start: seconds($0.offset)) })
    }

    /// The cells of a region's grid for `recordings`, in order, row by row.
    static func grid(_ recordings: [RoomRecordingRecord], region: VideoLayout.Region,
                     canvas: (width: Int, height: Int)) -> [(RoomRecordingRecord, x: Int, y: Int, width: Int, height: Int)] {
        let x = min(region.x, canvas.width - 2), y = min(region.y, canvas.height - 2)
        let width = min(region.width ?? canvas.width - x, canvas.width - x)
        let height = min(region.height ?? canvas.height - y, canvas.height - y)
        var capacity = recordings.count
        if let columns = region.maxColumns, let rows = region.maxRows { capacity = min(capacity, columns * rows) }
        let shown = Array(recordings.prefix(capacity))
        guard !shown.isEmpty, width >= 2, height >= 2 else { return [] }
        var columns = 1
        while columns * columns < shown.count { columns += 1 }
        if let maxColumns = region.maxColumns { columns = min(columns, maxColumns) }
        var rows = (shown.count + columns - 1) / columns
        if let maxRows = region.maxRows, rows > maxRows {
            rows = maxRows
            columns = (shown.count + rows - 1) / rows
        }
        let cellWidth = width / columns, cellHeight = height / rows
        return shown.enumerated().map { index, recording in
            (recording, x + (index % columns) * cellWidth, y + (index / columns) * cellHeight, cellWidth, cellHeight)
        }
    }
}
