import FieldpassDevice
import Foundation
import Testing

/// The file an app or the CLI keeps its tokens in.
@Suite struct FileTokenStoreTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldpass-tokens-\(UUID().uuidString)")
    let tokens = TokenSet(
        accessToken: "access.jwt.value", refreshToken: "refresh-value", expiresAt: Date(timeIntervalSince1970: 1_900_000_000))

    @Test func keepsTheTokensInAFileOnlyItsOwnerCanRead() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tokens.json").path
        let store = FileTokenStore(path: path)
        #expect(try await store.load() == nil)
        try await store.save(tokens)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try await FileTokenStore(path: path).load() == tokens)
        let rotated = TokenSet(accessToken: "next.jwt.value", refreshToken: "next-refresh", expiresAt: tokens.expiresAt + 900)
        try await store.save(rotated)
        #expect(try await store.load() == rotated)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["tokens.json"])
        try await store.clear()
        #expect(try await store.load() == nil)
        try await store.clear()
    }

    @Test func aFileThatIsNotTokensIsAnErrorNotASignedOutDevice() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tokens.json").path
        try Data("{\"access_token\": 1}".utf8).write(to: URL(fileURLWithPath: path))
        await #expect(throws: DecodingError.self) { try await FileTokenStore(path: path).load() }
    }

    @Test func aSaveThatCannotPutTheFileInPlaceFailsAndLeavesNoCopy() async throws {
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("tokens.json"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A folder where the file belongs: the new file cannot take its place.
        await #expect(throws: CocoaError.self) {
            try await FileTokenStore(path: folder.appendingPathComponent("tokens.json").path).save(tokens)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["tokens.json"])
    }

    @Test func aPrintedTokenSetShowsNoToken() {
        var dumped = ""
        dump(tokens, to: &dumped)
        let printed = "\(tokens) \(String(reflecting: tokens)) \(dumped)"
        #expect(!printed.contains(tokens.accessToken) && !printed.contains(tokens.refreshToken))
    }
}
