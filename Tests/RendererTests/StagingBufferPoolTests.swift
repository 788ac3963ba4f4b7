import Testing

@testable import Renderer

/// Upload staging buffers go back to their pool when released and are handed out again.
@Suite(.enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment))
struct StagingBufferPoolTests {
    @Test func aReleasedBufferIsReusedForUploadsUpToHalfItsSize() throws {
        try withValidatedContext { context in
            let pool = StagingBufferPool(context: context)
            var staging: StagingBuffer? = try pool.take(size: 1000)
            let first = try #require(staging?.buffer)
            #expect(pool.idleBytes == 0)
            staging = nil
            #expect(pool.idleBytes == 1000)
            let reused = try pool.take(size: 500)
            #expect(reused.buffer === first)
            #expect(pool.idleBytes == 0)
            // Still held, so a second upload gets a buffer of its own.
            let other = try pool.take(size: 500)
            #expect(other.buffer !== first && other.buffer.size == 500)
        }
    }

    @Test func aBufferMoreThanTwiceTheUploadIsNotReused() throws {
        try withValidatedContext { context in
            let pool = StagingBufferPool(context: context)
            _ = try pool.take(size: 1001)
            #expect(pool.idleBytes == 1001)
            let small = try pool.take(size: 500)
            #expect(small.buffer.size == 500)
            #expect(pool.idleBytes == 1001)
        }
    }

    @Test func idleBuffersBeyondTheLimitAreFreedOldestFirst() throws {
        try withValidatedContext { context in
            let pool = StagingBufferPool(context: context)
            let before = context.liveMemoryAllocations
            let quarter = StagingBufferPool.maximumIdleBytes / 4
            var held = try (0..<5).map { _ in try pool.take(size: quarter) }
            weak var oldest = held[0].buffer
            weak var newest = held[4].buffer
            held.removeAll()
            #expect(pool.idleBytes == 4 * quarter)
            #expect(context.liveMemoryAllocations == before + 4)
            #expect(oldest == nil && newest != nil)
        }
    }

    /// Thousands of tiny uploads keep no more than `maximumIdleBuffers` device allocations idle.
    @Test func smallIdleBuffersBeyondTheCountLimitAreFreedOldestFirst() throws {
        try withValidatedContext { context in
            let pool = StagingBufferPool(context: context)
            let before = context.liveMemoryAllocations
            let limit = StagingBufferPool.maximumIdleBuffers
            var held = try (0...limit).map { _ in try pool.take(size: 256) }
            weak var oldest = held[0].buffer
            weak var newest = held[limit].buffer
            held.removeAll()
            #expect(pool.idleBytes == 256 * limit)
            #expect(context.liveMemoryAllocations == before + limit)
            #expect(oldest == nil && newest != nil)
        }
    }

    @Test func buffersOfAPoolThatWentAreFreed() throws {
        try withValidatedContext { context in
            let before = context.liveMemoryAllocations
            var pool: StagingBufferPool? = StagingBufferPool(context: context)
            let staging = try pool!.take(size: 4096)
            pool = nil
            #expect(context.liveMemoryAllocations == before + 1)
            _ = consume staging
            #expect(context.liveMemoryAllocations == before)
        }
    }
}
