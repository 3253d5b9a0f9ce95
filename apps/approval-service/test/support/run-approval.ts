/** The approval-service in a child process of a test (startChildApp), so the test can kill it mid-work. */
import { Test } from '@nestjs/testing';
import { runNestAppAsChild } from '@app/testing';
import { AppModule } from '../../src/app.module';

runNestAppAsChild((env, role) => Test.createTestingModule({ imports: [AppModule.forRoot({ role, env })] }));
