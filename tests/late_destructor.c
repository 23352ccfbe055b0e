/* SPDX-License-Identifier: MIT */
/* Thread-exit destructors that run in every round (a destructor that sets
   its key again runs once more, up to PTHREAD_DESTRUCTOR_ITERATIONS rounds)
   and lock a mutex in each: no xrt. Plain, it prints the rounds and exits 0.
   Under ThreadSanitizer the last rounds run after TSan has finished the
   thread, and the program dies of SIGSEGV in TSan's runtime: that is why
   test_thread_exit's test_calls_from_later_destructors, which calls xrt in
   every round, is skipped under TSan. tests/run.sh runs both builds, so a
   TSan that lifts the limit is noticed. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static pthread_key_t key;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int rounds;

static void destructor(void *value)
{
    pthread_mutex_lock(&lock);
    rounds = (int)(uintptr_t)value;
    pthread_mutex_unlock(&lock);
    pthread_setspecific(key, (void *)((uintptr_t)value + 1)); /* once more, in the next round */
}

static void *thread(void *arg)
{
    (void)arg;
    pthread_setspecific(key, (void *)1);
    return NULL;
}

int main(void)
{
    pthread_t t;
    if (pthread_key_create(&key, destructor) != 0 || pthread_create(&t, NULL, thread, NULL) != 0) return 1;
    pthread_join(t, NULL);
    printf("destructor rounds: %d\n", rounds);
    return rounds >= 2 ? 0 : 1;
}
