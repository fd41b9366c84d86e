//! The allocator's ceiling (`engine::allocator`), installed here as the worker and the CLI
//! install it: inside `within`, an allocation that would take this thread past the ceiling is
//! refused and noted; what the work frees counts back; other threads and the code outside are
//! not limited. (A refusal through `Vec` or `String` aborts the program: the CLI's test of a
//! hostile chat template sees that end; here the allocator is called directly.)

use engine::allocator::{self, Allocator, Refusal};
use std::alloc::{GlobalAlloc, Layout};

#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

const MIB: usize = 1 << 20;

fn layout(bytes: usize) -> Layout {
    Layout::from_size_align(bytes, 8).unwrap()
}

// One test: the refusal is one note for the whole process, so tests in parallel would mix.
#[test]
fn the_ceiling_refuses_what_would_pass_it_and_nothing_else() {
    allocator::take_refusal();
    allocator::within("the test's work", MIB, || {
        // Under the ceiling, and again after freeing: what is freed counts back.
        for _ in 0..3 {
            let v = vec![1u8; 700 * 1024];
            assert_eq!(v.len(), 700 * 1024);
        }
        // Growing in place is counted too: 512 KiB to 2 MiB does not fit.
        let p = unsafe { Allocator.alloc(layout(512 * 1024)) };
        assert!(!p.is_null());
        let q = unsafe { Allocator.realloc(p, layout(512 * 1024), 2 * MIB) };
        assert!(q.is_null(), "a realloc past the ceiling is refused");
        assert_eq!(allocator::take_refusal(), Some(Refusal::Ceiling { what: "the test's work", bytes: MIB }));
        unsafe { Allocator.dealloc(p, layout(512 * 1024)) };
    });
    allocator::within("the test's work", MIB, || {
        // Another thread is not this work: it allocates past the ceiling.
        let other = std::thread::spawn(|| vec![2u8; 4 * MIB].iter().map(|&b| b as usize).sum::<usize>());
        assert_eq!(other.join().unwrap(), 8 * MIB);
        let p = unsafe { Allocator.alloc(layout(2 * MIB)) };
        assert!(p.is_null(), "past the ceiling");
        assert_eq!(
            allocator::take_refusal().map(|r| r.to_string()).as_deref(),
            Some("the test's work needed more than 1 MiB of memory, the most it may hold")
        );
    });
    // After `within`, nothing is limited, and nothing is noted.
    let big = vec![3u8; 64 * MIB];
    assert_eq!(big[64 * MIB - 1], 3);
    assert_eq!(allocator::take_refusal(), None);
}
