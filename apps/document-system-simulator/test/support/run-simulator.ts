/** The simulator in a child process (startChildApp), listening on the env's PORT: for tests that kill it, and benchmarks. */
import { createHttpApp, listenOnLoopback, runAsChild } from '@app/testing';
import { AppModule } from '../../src/app.module';

runAsChild(async (env) => {
  await listenOnLoopback(await createHttpApp(AppModule.forRoot({ env }), 'simulator'), Number(env.PORT));
});
