import Foundation
import ParleyStore

/// A fresh temporary directory, removed by `cleanup()`.
struct TempDir {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("parley-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func cleanup() { try? FileManager.default.removeItem(at: url) }
}

/// The two `PlatformStore` implementations; every shared test runs against both.
enum StoreKind: String, CaseIterable {
    case sqlite, memory

    func make(in dir: TempDir, now: @escaping @Sendable () -> Int64 = { 1_800_000_000 }) throws -> any PlatformStore {
        switch self {
        case .sqlite: return try SQLiteAccountStore(path: dir.path("parley.db"), now: now)
        case .memory: return InMemoryAccountStore(now: now)
        }
    }
}


func filePermissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}
