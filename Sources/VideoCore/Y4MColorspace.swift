/// The Y4M `C` parameter's 4:2:0 variants, which differ only in chroma siting; all are read
/// and written as I420. Absent `C` means `420jpeg` (mjpegtools' yuv4mpeg.h, ffmpeg's y4mdec).
public enum Y4MColorspace: String, Sendable, CaseIterable {
    case c420 = "420"
    case c420jpeg = "420jpeg"
    case c420mpeg2 = "420mpeg2"
    case c420paldv = "420paldv"
}
