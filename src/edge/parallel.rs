//! Spreading independent work over the machine's cores: [`map`] for a batch whose results
//! are all wanted at once, [`ordered`] for a stream of results settled one after the other in
//! a fixed order while the next ones are worked on.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

/// The threads to use when `requested` does not say: one per core the process may run on.
pub(crate) fn threads(requested: Option<usize>) -> usize {
    requested.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
}

/// `f` applied to every item, on as many threads as there are cores (at most one per item),
/// with the results in the items' order.
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = threads(None).min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    let result = f(item);
                    results.lock().unwrap_or_else(|e| e.into_inner())[index] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every item is mapped"))
        .collect()
}

/// Where an [`ordered`] run stands, shared by its threads.
struct Progress<R> {
    /// The next item a worker takes.
    next: usize,
    /// Items settled so far: workers stay at most `ahead` items past them.
    settled: usize,
    /// Results waiting to be settled, by item.
    done: BTreeMap<usize, R>,
    /// No more items are to be taken: the settling stopped, or a worker panicked.
    stop: bool,
    panicked: bool,
}

/// The shared state of an [`ordered`] run and its two signals.
struct Shared<R> {
    progress: Mutex<Progress<R>>,
    /// A result is done (or a worker panicked).
    ready: Condvar,
    /// An item was settled, or the run stops: a worker may take the next.
    room: Condvar,
}

impl<R> Shared<R> {
    fn lock(&self) -> MutexGuard<'_, Progress<R>> {
        // A worker that panicked holding the lock leaves the map whole; the panic itself is
        // raised when the threads are joined.
        self.progress.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next item for a worker, once it is at most `ahead` past the settled ones; `None`
    /// when there are no more, or the run stops.
    fn take(&self, len: usize, ahead: usize) -> Option<usize> {
        let mut progress = self.lock();
        loop {
            if progress.stop || progress.next >= len {
                return None;
            }
            if progress.next < progress.settled + ahead {
                progress.next += 1;
                return Some(progress.next - 1);
            }
            progress = self.room.wait(progress).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The result of item `index`, once done; `None` when a worker panicked.
    fn wait_for(&self, index: usize) -> Option<R> {
        let mut progress = self.lock();
        loop {
            if let Some(result) = progress.done.remove(&index) {
                return Some(result);
            }
            if progress.panicked {
                return None;
            }
            progress = self.ready.wait(progress).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Tells the settling thread when a worker panics, so it does not wait for a result that
/// never comes.
struct PanicAlarm<'a, R>(&'a Shared<R>);

impl<R> Drop for PanicAlarm<'_, R> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut progress = self.0.lock();
            (progress.panicked, progress.stop) = (true, true);
            drop(progress);
            self.0.ready.notify_all();
            self.0.room.notify_all();
        }
    }
}

/// Apply `work` to every item on `threads` threads, and hand each result to `settle` on the
/// calling thread, in the items' order, as soon as it and every result before it are done;
/// at most `ahead` items are worked on past the last one settled, so what waits stays small.
/// `settle` returning false stops the run: the items not settled yet are dropped, and no more
/// are begun. With one thread everything runs on the calling thread, one item after the
/// other. Whatever the threads, `settle` sees the same results in the same order.
pub(crate) fn ordered<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    ahead: usize,
    work: impl Fn(&T) -> R + Sync,
    mut settle: impl FnMut(usize, R) -> bool,
) {
    let threads = threads.min(items.len());
    if threads <= 1 {
        for (index, item) in items.iter().enumerate() {
            if !settle(index, work(item)) {
                return;
            }
        }
        return;
    }
    let ahead = ahead.max(threads);
    let shared = Shared {
        progress: Mutex::new(Progress { next: 0, settled: 0, done: BTreeMap::new(), stop: false, panicked: false }),
        ready: Condvar::new(),
        room: Condvar::new(),
    };
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let _alarm = PanicAlarm(&shared);
                while let Some(index) = shared.take(items.len(), ahead) {
                    let result = work(&items[index]);
                    shared.lock().done.insert(index, result);
                    shared.ready.notify_one();
                }
            });
        }
        for index in 0..items.len() {
            // A worker's panic is raised when the scope joins it.
            let Some(result) = shared.wait_for(index) else { break };
            let go_on = settle(index, result);
            let mut progress = shared.lock();
            progress.settled = index + 1;
            progress.stop |= !go_on;
            drop(progress);
            shared.room.notify_all();
            if !go_on {
                break;
            }
        }
        let mut progress = shared.lock();
        progress.stop = true;
        progress.done.clear();
        drop(progress);
        shared.room.notify_all();
    });
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn results_keep_the_items_order() {
        let items: Vec<u64> = (0..1000).collect();
        assert_eq!(super::map(&items, |n| n * 2), items.iter().map(|n| n * 2).collect::<Vec<_>>());
        assert!(super::map(&Vec::<u8>::new(), |n| *n).is_empty());
    }

    #[test]
    fn results_are_settled_in_order_whatever_the_threads() {
        let items: Vec<u64> = (0..500).collect();
        for threads in [1, 2, 3, 8] {
            let mut settled = Vec::new();
            super::ordered(
                &items,
                threads,
                4,
                |n| n * 3,
                |index, r| {
                    settled.push((index, r));
                    true
                },
            );
            assert_eq!(settled, items.iter().map(|&n| (n as usize, n * 3)).collect::<Vec<_>>(), "{threads} threads");
        }
    }

    #[test]
    fn a_stop_begins_no_more_work_and_settles_nothing_more() {
        let items: Vec<u64> = (0..1000).collect();
        for threads in [1, 2] {
            let worked = AtomicUsize::new(0);
            let mut settled = 0;
            let work = |n: &u64| {
                worked.fetch_add(1, Ordering::Relaxed);
                *n
            };
            super::ordered(&items, threads, 4, work, |index, _| {
                settled += 1;
                index < 9
            });
            assert_eq!(settled, 10);
            assert!(worked.load(Ordering::Relaxed) <= 10 + 4 + threads, "{threads} threads");
        }
    }

    #[test]
    #[should_panic(expected = "a scoped thread panicked")]
    fn a_worker_that_panics_does_not_leave_the_settling_thread_waiting() {
        let items: Vec<u64> = (0..100).collect();
        super::ordered(&items, 2, 4, |n| if *n == 7 { panic!("boom") } else { *n }, |_, _| true);
    }
}
