import Foundation
import KioskShell
import Testing

/// Where the GPU driver keeps compiled shaders, found as Mesa finds it, and what Vitrine says at
/// start when it cannot keep them.
@Suite struct ShaderCacheTests {
    @Test func mesasOwnVariableComesFirstThenXDGCacheHomeThenThePasswdHome() {
        let environment = ["MESA_SHADER_CACHE_DIR": "/srv/shaders", "XDG_CACHE_HOME": "/var/cache/kiosk", "HOME": "/root"]
        #expect(ShaderCache(environment: environment, passwdHome: "/var/lib/vitrine").directory == "/srv/shaders")
        var withoutMesa = environment
        withoutMesa["MESA_SHADER_CACHE_DIR"] = nil
        #expect(ShaderCache(environment: withoutMesa, passwdHome: "/var/lib/vitrine").directory == "/var/cache/kiosk/mesa_shader_cache")
        // $HOME is not consulted: the passwd entry's home is.
        #expect(ShaderCache(environment: ["HOME": "/root"], passwdHome: "/var/lib/vitrine").directory
                    == "/var/lib/vitrine/.cache/mesa_shader_cache")
        #expect(ShaderCache(environment: ["XDG_CACHE_HOME": ""], passwdHome: nil).directory == nil)
    }

    @Test func aMissingCacheIsJudgedByTheNearestFolderThatExists() {
        let cache = ShaderCache(environment: [:], passwdHome: "/var/lib/vitrine")
        var asked: [String] = []
        let problem = cache.problem(isWritable: { asked.append($0); return true }, exists: { $0 == "/var/lib/vitrine" || $0 == "/var/lib" })
        #expect(problem == nil)
        #expect(asked == ["/var/lib/vitrine"])
    }

    @Test func aHomeThatDoesNotExistUnderAReadOnlyRootIsNamedInTheWarning() {
        // nobody's passwd home: /nonexistent, under a root the user cannot write.
        let cache = ShaderCache(environment: [:], passwdHome: "/nonexistent")
        let problem = cache.problem(isWritable: { _ in false }, exists: { $0 == "/" })
        #expect(problem == "the GPU driver cannot keep compiled shaders in /nonexistent/.cache/mesa_shader_cache (/ is not writable): every start compiles them again; give the user a writable home or set XDG_CACHE_HOME")
    }

    @Test func noFolderAtAllIsAWarningAndACacheTurnedOffOnPurposeIsNone() {
        #expect(ShaderCache(environment: [:], passwdHome: nil).problem()
                    == "the GPU driver cannot keep compiled shaders (no XDG_CACHE_HOME and no home directory): every start compiles them again; set XDG_CACHE_HOME to a writable folder")
        let disabled = ShaderCache(environment: ["MESA_SHADER_CACHE_DISABLE": "true"], passwdHome: nil)
        #expect(disabled.isDisabled)
        #expect(disabled.problem() == nil)
    }

    @Test func aWritableFolderOnDiskHasNoProblem() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shader-cache-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = ShaderCache(environment: ["XDG_CACHE_HOME": folder + "/not-made-yet"], passwdHome: nil)
        #expect(cache.directory == folder + "/not-made-yet/mesa_shader_cache")
        #expect(cache.problem() == nil)
    }
}
