import FieldpassDevice
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

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

    @Test func theInstallationIdOutlivesASignOutAndIsKeptAsCarefully() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tokens.json").path
        let store = FileTokenStore(path: path)
        #expect(try await store.loadInstallationID() == nil)
        try await store.saveInstallationID("installation-0123456789")
        try await store.save(tokens)
        try await store.clear()
        #expect(try await FileTokenStore(path: path).loadInstallationID() == "installation-0123456789")
        let mode = try FileManager.default.attributesOfItem(atPath: path + ".installation")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // A planted link in its place is refused, as the token file's would be.
        try FileManager.default.removeItem(atPath: path + ".installation")
        try FileManager.default.createSymbolicLink(atPath: path + ".installation", withDestinationPath: "/etc/hostname")
        await #expect(throws: FieldpassClientError.unsafeTokenFile(path: path + ".installation", problem: .symbolicLink)) {
            try await store.loadInstallationID()
        }
    }

    @Test func aFileThatIsNotTokensIsAnErrorNotASignedOutDevice() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tokens.json").path
        // The device's own private file, so that only its content is wrong.
        let content = Data("{\"access_token\": 1}".utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: content, attributes: [.posixPermissions: 0o600]))
        await #expect(throws: DecodingError.self) { try await FileTokenStore(path: path).load() }
    }

    @Test func aSaveThatCannotPutTheFileInPlaceFailsAndLeavesNoCopy() async throws {
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("tokens.json"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A folder where the file belongs: the new file cannot take its place.
        await #expect(throws: POSIXError(.EISDIR)) {
            try await FileTokenStore(path: folder.appendingPathComponent("tokens.json").path).save(tokens)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["tokens.json"])
    }

    @Test func aSymbolicLinkIsRefusedNotFollowed() async throws {
        let path = try await savedTokens()
        defer { try? FileManager.default.removeItem(at: folder) }
        let link = folder.appendingPathComponent("link.json").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        await #expect(throws: FieldpassClientError.unsafeTokenFile(path: link, problem: .symbolicLink)) {
            try await FileTokenStore(path: link).load()
        }
    }

    @Test func aFileOthersCanReadIsRefused() async throws {
        let path = try await savedTokens()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        await #expect(throws: FieldpassClientError.unsafeTokenFile(path: path, problem: .openToOthers)) {
            try await FileTokenStore(path: path).load()
        }
    }

    @Test func aFileOwnedByAnotherUserIsRefused() async throws {
        // The tests run as root, which may give a file away: the file is planted by handing it
        // to `nobody` (uid 65534). Run as any other user, the chown fails and the test says so.
        let path = try await savedTokens()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(chown(path, 65534, 65534) == 0, "cannot give the file to nobody: run the tests as root")
        await #expect(throws: FieldpassClientError.unsafeTokenFile(path: path, problem: .ownedByAnotherUser)) {
            try await FileTokenStore(path: path).load()
        }
    }

    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tokens.json").path
        #expect(mkfifo(path, 0o600) == 0)
        await #expect(throws: FieldpassClientError.unsafeTokenFile(path: path, problem: .notARegularFile)) {
            try await FileTokenStore(path: path).load()
        }
    }

    @Test func aPrintedTokenSetShowsNoToken() {
        var dumped = ""
        dump(tokens, to: &dumped)
        let printed = "\(tokens) \(String(reflecting: tokens)) \(dumped)"
        #expect(!printed.contains(tokens.accessToken) && !printed.contains(tokens.refreshToken))
    }

    /// The folder, with `tokens` saved in it; the file's path.
    private func savedTokens() async throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("tokens.json").path
        try await FileTokenStore(path: path).save(tokens)
        return path
    }
}
